package stories

import "github.com/crawlconsole/crawlconsole/engine/page"

// Fingerprint returns the story fingerprint of an article (page.StoryFingerprint):
// a SimHash of its main text's long paragraphs, which syndicated copies share
// while their headlines, bylines, datelines and templates differ. ok is false when
// the body has no paragraph of prose: a listing, a gallery, a form, which are
// nobody's story.
func Fingerprint(t page.Text) (fp uint64, ok bool) {
	return page.StoryFingerprint(t)
}
