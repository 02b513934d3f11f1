package front

import (
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/refresh"
	"github.com/crawlconsole/crawlconsole/engine/sites"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// dedupeFront is a front over a fresh store whose dedupe keeps one URL in its LRU:
// a link checked twice with another between is a Bloom "maybe" the second time.
func dedupeFront(t *testing.T) (*Front, *fakeCrawl, *store.Store) {
	opts := config.DefaultOptions()
	return storeFront(t, &opts, frontier.NewDedupe(1000, 0.01, 1))
}

// storeFront is a front of a.test over a fresh store, with these options and
// dedupe (nil: none); its crawl counts up to 1,000 idle checks.
func storeFront(t testing.TB, opts *config.Options, dedupe *frontier.Dedupe) (*Front, *fakeCrawl, *store.Store) {
	t.Helper()
	return storeFrontWith(t, opts, dedupe, store.Options{})
}

// storeFrontWith is storeFront over a store opened with these store options.
func storeFrontWith(t testing.TB, opts *config.Options, dedupe *frontier.Dedupe, so store.Options) (*Front, *fakeCrawl, *store.Store) {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "crawl.db"), so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f, c := frontOn(t, opts, dedupe, st)
	return f, c, st
}

// frontOn is storeFront over st, a store the caller opened (and closes).
func frontOn(t testing.TB, opts *config.Options, dedupe *frontier.Dedupe, st *store.Store) (*Front, *fakeCrawl) {
	t.Helper()
	scope, err := frontier.NewScope([]string{"http://a.test/"}, frontier.ScopeConfig{})
	if err != nil {
		t.Fatal(err)
	}
	c := &fakeCrawl{idle: make(chan struct{}, 1000)}
	rv, err := refresh.New(config.DefaultOptions().Revisit, st, func(view.Level, string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	var book atomic.Pointer[sites.Book]
	book.Store(sites.FromOptions(opts))
	p := Parts{Mu: &sync.Mutex{}, Opts: opts, Store: st, Counters: &Counters{},
		Budgets: NewBudgets(config.BudgetOptions{}, 0), Scope: scope, Sites: &book, Revisit: rv, Dedupe: dedupe}
	if dedupe != nil {
		p.Variants = frontier.NewCanonicals(opts.URLVariants)
	}
	return New(p, c), c
}

// extract is Extract for a fetched page of a.test with these links.
func extract(f *Front, path string, links ...string) ([]store.URL, Claims) {
	u := "http://a.test" + path
	return f.Extract(frontier.Task{URL: u, Host: "a.test"}, &fetch.Result{FinalURL: u, Links: links}, nil)
}

// submitted hands a page's rows to the store and waits for each insert's answer.
func submitted(f *Front, c *fakeCrawl, st *store.Store, rows []store.URL, maybe Claims) {
	f.SubmitLinks(rows, maybe, st.AddURLs)
	for range rows {
		<-c.idle // one CheckIdle per URL the store answered for
	}
}

// checkRescues asserts the operator's dedupe figures add up: every URL in the store
// came in as a New verdict or as a rescued false positive, and wantRescued of them as
// the latter.
func checkRescues(t *testing.T, f *Front, st *store.Store, wantRescued int64) {
	t.Helper()
	c, err := st.Counts()
	if err != nil {
		t.Fatal(err)
	}
	d := f.Dedupe.Stats()
	rescued := f.Counters.DedupeFalsePositives.Load()
	if rescued != wantRescued || int64(d.New)+rescued != c.URLs {
		t.Fatalf("new %d + rescued %d = %d for %d URLs in the store; want %d rescued",
			d.New, rescued, int64(d.New)+rescued, c.URLs, wantRescued)
	}
}

// Two lanes find the same link at once: the first records it as New, and before its
// insert reaches the store the second gets a Bloom "maybe" for it, which the store
// cannot confirm yet. The store keeps the first insert: no false positive was rescued,
// and the link must not count both as new and as rescued.
func TestLinkFoundNewByOneLaneIsNoRescueForAnother(t *testing.T) {
	f, c, st := dedupeFront(t)
	rowsA, maybeA := extract(f, "/a", "/x")
	rowsB, maybeB := extract(f, "/b", "/y", "/x") // /y pushes /x out of the LRU
	if len(rowsA) != 1 || len(maybeA) != 0 || len(rowsB) != 2 || len(maybeB) != 1 {
		t.Fatalf("rows %d and %d, claims %v and %v: want /x new on /a, a maybe on /b", len(rowsA), len(rowsB), maybeA, maybeB)
	}
	submitted(f, c, st, rowsA, maybeA) // the first finder's insert lands first
	submitted(f, c, st, rowsB, maybeB)
	checkRescues(t, f, st, 0)
}

// The same race, with the second finder's insert reaching the store first (the first
// lane still signing its page): the store takes the "maybe" batch's row and ignores
// the first finder's. The link was new, never a Bloom false positive: the figure the
// console shows stays 0, where it counted the link both as new and as rescued.
func TestLinkFoundNewByOneLaneIsNoRescueWhenTheOtherInsertLandsFirst(t *testing.T) {
	f, c, st := dedupeFront(t)
	rowsA, maybeA := extract(f, "/a", "/x")
	rowsB, maybeB := extract(f, "/b", "/y", "/x") // /y pushes /x out of the LRU
	if len(rowsA) != 1 || len(maybeA) != 0 || len(rowsB) != 2 || len(maybeB) != 1 {
		t.Fatalf("rows %d and %d, claims %v and %v: want /x new on /a, a maybe on /b", len(rowsA), len(rowsB), maybeA, maybeB)
	}
	submitted(f, c, st, rowsB, maybeB) // the second finder's insert lands first
	submitted(f, c, st, rowsA, maybeA)
	checkRescues(t, f, st, 0)
	// Once both inserts are in, a real false positive is counted again.
	f.Dedupe.Warm(func(yield func(string) bool) {
		_ = yield("http://a.test/z") && yield("http://a.test/w") // /w leaves /z out of the LRU
	})
	rowsC, maybeC := extract(f, "/c", "/z")
	submitted(f, c, st, rowsC, maybeC)
	checkRescues(t, f, st, 1)
}

// A real Bloom false positive, claimed by two lanes before either insert lands, is
// rescued once: by the batch whose insert the store takes.
func TestBloomFalsePositiveIsRescuedOnce(t *testing.T) {
	f, c, st := dedupeFront(t)
	// The filter holds /z's hash but the store never saw /z: a false positive.
	f.Dedupe.Warm(func(yield func(string) bool) {
		_ = yield("http://a.test/z") && yield("http://a.test/w") // /w leaves /z out of the LRU
	})
	rowsA, maybeA := extract(f, "/a", "/z")
	rowsB, maybeB := extract(f, "/b", "/q", "/z")
	if len(maybeA) != 1 || len(maybeB) != 1 {
		t.Fatalf("claims %v and %v: want /z a maybe on both pages", maybeA, maybeB)
	}
	submitted(f, c, st, rowsB, maybeB)
	submitted(f, c, st, rowsA, maybeA)
	checkRescues(t, f, st, 1)
}
