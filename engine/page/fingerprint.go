package page

import (
	"strings"
	"sync"
	"unsafe"

	"github.com/cespare/xxhash/v2"
	"github.com/crawlconsole/crawlconsole/engine/page/internal/bodytext"
	"github.com/crawlconsole/crawlconsole/engine/page/internal/textutil"
	"github.com/mfonda/simhash"
)

// MaxFingerprintBody is how much of a body Fingerprint reads; the rest of a giant page
// is ignored (its first 8 MiB decide whether it changed).
const MaxFingerprintBody = 8 << 20

// Fingerprint returns the 64-bit SimHash of a page's main text (M2) and whether the
// page had text to fingerprint. ok is false for empty bodies, binary types, bodies
// that decode to mostly replacement characters (broken or wrong encoding) and pages
// with no text at all: a caller must then treat the fetch as "unknown", never as
// "unchanged" (see Tracker.Observe). The main text is the headline and the article
// body (MainText); a page without a recognisable article is fingerprinted on its
// visible text (Text.Fallback), never on nothing.
//
// contentType is the response's Content-Type header ("" to sniff); its charset, a BOM
// or a <meta charset> select the decoder, so GBK, Shift_JIS or KOI8-R pages are read
// as what they are.
func Fingerprint(body []byte, contentType string) (hash uint64, ok bool) {
	sig, _, ok := Sign(body, contentType)
	return sig.SimHash, ok
}

// MainText returns a page's headline and article text (see Text), or ok=false when
// the body has no usable text (empty, binary, mis-decoded).
func MainText(body []byte, contentType string) (t Text, ok bool) {
	return Parse(body, contentType, nil).mainText()
}

// collapseLines folds white space inside each line of plain text.
func collapseLines(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		if l = textutil.CollapseSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// textSums are the figures Sign takes from a main text: its SimHash and the masked
// digests of its body and headline.
// With them, the story fingerprint (StoryFingerprint) of an article's text, made
// from the same normalised body: storyDone is false for a page with no article
// (Text.Fallback), whose story nobody asks.
type textSums struct {
	simhash, text, title uint64
	story                uint64
	storyOK, storyDone   bool
}

// textKey is the cache's key of a main text: a digest of its headline and body.
func textKey(t Text) uint64 {
	kd := xxhash.New()
	kd.WriteString(t.Title)
	kd.WriteString("\x00")
	kd.WriteString(t.Body)
	return kd.Sum64()
}

// textSignature returns a main text's sums, from the cache when the same text was
// seen recently (most refetches: the chrome differs, the article does not).
func textSignature(t Text) (textSums, bool) {
	key := textKey(t)
	if s, ok := recent.get(key); ok {
		return s, true
	}
	fs := getFeatureSet()
	defer putFeatureSet(fs)
	// The normalised texts live in the feature set's buffer for the walk only: its
	// strings share the buffer and are not kept. The story fingerprint of an
	// article is made in the same walk (storyWalk).
	var sameProse bool
	fs.norm, sameProse = appendNormalized(fs.norm[:0], t.Body)
	nb := len(fs.norm)
	fs.norm, _ = appendNormalized(fs.norm, t.Title)
	body, title := unsafe.String(unsafe.SliceData(fs.norm), nb), unsafe.String(unsafe.SliceData(fs.norm[nb:]), len(fs.norm)-nb)
	s, ok := fs.signWalk(title, body, t.Body, !t.Fallback, sameProse)
	if !ok {
		return textSums{}, false
	}
	recent.put(key, s)
	return s, true
}

// computeSimhash is the SimHash of a main text without the cache.
func computeSimhash(t Text) (uint64, bool) {
	return normalizedSimhash(normalize(t.Title), normalize(t.Body))
}

// normalizedSimhash is the SimHash of a normalised headline and body, each paragraph
// a block of weight 1. Numbers are masked, as in the digest: a view count or a clock
// inside the article is not an edit. (NFKC and case folding keep line breaks, so the
// body is normalised once, whole.)
func normalizedSimhash(title, body string) (uint64, bool) {
	fs := getFeatureSet()
	defer putFeatureSet(fs)
	if title != "" {
		fs.add(title, 1, true)
	}
	for len(body) > 0 {
		para := body
		if i := strings.IndexByte(body, '\n'); i >= 0 {
			para, body = body[:i], body[i+1:]
		} else {
			body = ""
		}
		fs.add(para, 1, true)
	}
	if len(fs.store) == 0 {
		return 0, false
	}
	return simhash.Fingerprint(fs.vector()), true
}

// Weighted is a piece of text and the weight of its features in a SimHash
// (WeightedSimHash); MaskNumbers drops digit runs from its features.
type Weighted struct {
	Text        string
	Weight      int
	MaskNumbers bool
}

// WeightedSimHash is the SimHash of weighted pieces of text, normalised and shingled
// as Sign's are: how the seed's extractor (the baseline of `go run ./bench changes`)
// fingerprints its text blocks. ok is false when the text has no features.
func WeightedSimHash(parts []Weighted) (hash uint64, ok bool) {
	fs := getFeatureSet()
	defer putFeatureSet(fs)
	for _, b := range parts {
		fs.add(normalize(b.Text), b.Weight, b.MaskNumbers)
	}
	if len(fs.store) == 0 {
		return 0, false
	}
	return simhash.Simhash(fs), true
}

// fingerprintCache remembers the SimHash of recently seen main texts. Most revisits
// find a page unchanged: its boilerplate differs byte for byte, but once that is
// stripped the text is the same, and the normalisation, shingling and 64-bit vote
// need not be redone. Direct-mapped: a colliding entry simply replaces the old one;
// keys are full 64-bit digests, so a hit is the same text.
type fingerprintCache struct {
	mu      sync.Mutex
	entries [1 << 15]cacheEntry
}

// cacheEntry is one cached main text: the digest of the text and its sums.
type cacheEntry struct {
	key  uint64
	sums textSums
}

var recent fingerprintCache

func (c *fingerprintCache) get(key uint64) (textSums, bool) {
	c.mu.Lock()
	e := c.entries[key%uint64(len(c.entries))]
	c.mu.Unlock()
	return e.sums, e.key == key && key != 0
}

func (c *fingerprintCache) put(key uint64, s textSums) {
	c.mu.Lock()
	c.entries[key%uint64(len(c.entries))] = cacheEntry{key, s}
	c.mu.Unlock()
}

// Distance is the Hamming distance between two fingerprints.
func Distance(a, b uint64) int { return int(simhash.Compare(a, b)) }

// PageText returns the main text Fingerprint works on, the headline then one
// paragraph a line (the console shows it when asked why a page counted as changed),
// or ok=false when the body has none.
func PageText(body []byte, contentType string) (text string, ok bool) {
	return Parse(body, contentType, nil).PageText()
}

// joined is the text as PageText gives it: the headline, then the body.
func (t Text) joined() string {
	if t.Title == "" {
		return t.Body
	}
	return t.Title + "\n" + t.Body
}

// Decode checks that a body is text and decodes it to UTF-8 as Sign reads it (the
// Content-Type's charset, a BOM or a <meta charset>); isHTML tells markup from plain
// text, ok is false for empty, binary or mis-decoded bodies.
func Decode(body []byte, contentType string) (decoded []byte, isHTML, ok bool) {
	return decodePage(body, contentType)
}

// UsableText reports whether decoded text is something a person reads: not mostly
// replacement or control characters.
func UsableText(text string) bool { return bodytext.Usable(text) }

// IsUnspacedScript reports whether r belongs to a script written without spaces
// between words (CJK, Thai, ...), whose runes Sign's features count one by one.
func IsUnspacedScript(r rune) bool { return isUnspacedScript(r) }

// decodePage is Decode.
func decodePage(body []byte, contentType string) (decoded []byte, isHTML, ok bool) {
	decoded, isHTML, _, ok = decodeText(body, contentType)
	return decoded, isHTML, ok
}

// decodeText is decodePage, also saying whether the decoded text is valid UTF-8:
// the first MaxFingerprintBody bytes of body, read as bodytext.Decode reads them.
func decodeText(body []byte, contentType string) (decoded []byte, isHTML, valid, ok bool) {
	if len(body) > MaxFingerprintBody {
		body = body[:MaxFingerprintBody]
	}
	return bodytext.Decode(body, contentType)
}
