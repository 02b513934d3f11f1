package stories

import (
	"sort"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"
)

// Page is what grouping needs of a stored article.
type Page struct {
	URL       string
	Site      string    // the outlet: the page's registered domain
	SimHash   uint64    // the main text's fingerprint (page.Signature.SimHash)
	Published time.Time // the page's own publication date; zero when unknown
	Fetched   time.Time // when it was stored
}

// when is the time the page counts as published: its own date, else when the
// crawl found it.
func (p Page) when() time.Time {
	if !p.Published.IsZero() {
		return p.Published
	}
	return p.Fetched
}

// Story is one article under every URL it was found at, earliest publisher first.
type Story struct {
	ID    string // stable while the book lives: the first page's fingerprint, in hex
	Pages []Page // earliest publisher first (own date, else fetch time), then URL
	Sites int    // distinct outlets among Pages
}

// Book groups pages into stories as they are added. A page joins the story of the
// nearest page already in the book within MaxDistance bits (Index.Nearest); a page
// with none starts a story. Safe for concurrent use.
//
// Memory: the index (64 bytes a page and slack, index.go), a story number per URL (the map
// from a URL's hash, some 40 bytes), and each page's URL and times in its story.
type Book struct {
	mu      sync.Mutex
	idx     Index
	stories []*story          // by story number
	byURL   map[uint64]uint32 // URL hash -> story number
	grouped []uint32          // the stories of two pages or more, by number
}

// story is a Story in the making: its pages in the order they came.
type story struct {
	id    string
	pages []Page
}

// NewBook returns an empty book.
func NewBook() *Book { return &Book{byURL: map[uint64]uint32{}} }

// Add puts p in its story and returns the story's id and how many pages it now
// has. A URL added again (a refetch) stays in the story it joined first.
func (b *Book) Add(p Page) (id string, size int) {
	key := xxhash.Sum64String(p.URL)
	b.mu.Lock()
	defer b.mu.Unlock()
	if n, ok := b.byURL[key]; ok {
		s := b.stories[n]
		return s.id, len(s.pages)
	}
	n, _, ok := b.idx.Nearest(p.SimHash)
	if !ok {
		n = uint32(len(b.stories))
		b.stories = append(b.stories, &story{id: storyID(p.SimHash)})
	}
	s := b.stories[n]
	s.pages = append(s.pages, p)
	if len(s.pages) == 2 {
		b.grouped = append(b.grouped, n)
	}
	b.idx.Add(p.SimHash, n)
	b.byURL[key] = n
	return s.id, len(s.pages)
}

// Reset empties the book.
func (b *Book) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.idx, b.stories, b.byURL, b.grouped = Index{}, nil, map[uint64]uint32{}, nil
}

// StoryOf returns the story url belongs to.
func (b *Book) StoryOf(url string) (Story, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, ok := b.byURL[xxhash.Sum64String(url)]
	if !ok {
		return Story{}, false
	}
	return b.stories[n].view(), true
}

// Len returns the pages and stories in the book, and the stories of two pages or
// more (the syndicated ones).
func (b *Book) Len() (pages, stories, grouped int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.byURL), len(b.stories), len(b.grouped)
}

// Grouped returns up to n stories of two pages or more, the most recently joined
// first (a wire story spreading now is what an operator looks at).
func (b *Book) Grouped(n int) []Story {
	b.mu.Lock()
	defer b.mu.Unlock()
	type cand struct {
		s    *story
		last time.Time
	}
	cands := make([]cand, 0, len(b.grouped))
	for _, g := range b.grouped {
		s := b.stories[g]
		cands = append(cands, cand{s, s.pages[len(s.pages)-1].Fetched})
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].last.After(cands[j].last) })
	if len(cands) > n {
		cands = cands[:n]
	}
	out := make([]Story, len(cands))
	for i, c := range cands {
		out[i] = c.s.view()
	}
	return out
}

// view copies the story with its pages earliest publisher first.
func (s *story) view() Story {
	pages := append([]Page(nil), s.pages...)
	sort.SliceStable(pages, func(i, j int) bool {
		a, b := pages[i].when(), pages[j].when()
		if !a.Equal(b) {
			return a.Before(b)
		}
		return pages[i].URL < pages[j].URL
	})
	sites := map[string]bool{}
	for _, p := range pages {
		sites[p.Site] = true
	}
	return Story{ID: s.id, Pages: pages, Sites: len(sites)}
}

// storyID is fp as 16 lower-case hex digits (fmt's %016x without its boxing of fp:
// one allocation a new story instead of two).
func storyID(fp uint64) string {
	const digits = "0123456789abcdef"
	var b [16]byte
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = digits[fp&15]
		fp >>= 4
	}
	return string(b[:])
}
