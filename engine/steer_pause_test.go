package engine

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// searchHost is a social site's one host: search pages without links, each request
// noted in order as "keyword/page".
type searchHost struct {
	mu         sync.Mutex
	seen       []string
	start, end []time.Time // of each request, as the server saw it
}

func (h *searchHost) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/search" {
		http.NotFound(w, r)
		return
	}
	h.mu.Lock()
	h.seen = append(h.seen, r.URL.Query().Get("q")+"/"+r.URL.Query().Get("page"))
	h.start = append(h.start, time.Now())
	h.mu.Unlock()
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprintf(w, "<html><body><p>results for %s</p></body></html>", r.URL.Query().Get("q"))
	h.mu.Lock()
	h.end = append(h.end, time.Now()) // one request at a time here: in the order of start
	h.mu.Unlock()
}

// gaps are the pauses the server saw, from the end of one answer to the start of
// the next request.
func (h *searchHost) gaps() []time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []time.Duration
	for i := 1; i < len(h.start) && i <= len(h.end); i++ {
		out = append(out, h.start[i].Sub(h.end[i-1]))
	}
	return out
}

func (h *searchHost) requests() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.seen...)
}

func (h *searchHost) count(req string) int {
	n := 0
	for _, s := range h.requests() {
		if s == req {
			n++
		}
	}
	return n
}

// searchOptions crawl a social site "chirp" on h's server, searched for "flood"
// (three pages), nothing else.
func searchOptions(t *testing.T, srv *httptest.Server) config.Options {
	o := testDefaults()
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Lanes.Max = 2
	o.HostRate = 0
	o.Revisit.Enabled = false
	o.Discovery.Enabled = false
	o.Sites = []config.SiteOptions{{Name: "chirp", Kind: config.SiteSocial, Search: srv.URL + "/search?q={keyword}&page={page}",
		Pages: 3, Keywords: []string{"flood"}}}
	return o
}

// A keyword added while the search host's lane pauses between two searches is
// searched at once: the lane's pause (here drawn between 20 ms and ten hours) is cut
// to delay_min for the operator's search, which goes before the page the lane would
// have fetched next; that page and the one after it stay queued, in order. Before,
// the search waited at the head of the queue for the rest of the pause (hours here).
// The host's gap still holds: the server sees every request at least 1/host_rate
// (100 ms) after the last answer ended.
func TestKeywordSearchedDuringTheLanePause(t *testing.T) {
	t.Parallel()
	h := &searchHost{}
	srv := httptest.NewServer(h)
	defer srv.Close()
	o := searchOptions(t, srv)
	o.Lanes.DelayMin, o.Lanes.DelayMax = 20*time.Millisecond, 10*time.Hour
	o.HostRate = 10
	e := startEngine(t, o)
	waitFor(t, "the first search, then the lane in its pause", func() bool {
		if len(h.requests()) == 0 {
			return false
		}
		for _, l := range e.Snapshot().Lanes {
			if l.Status == view.LaneWaiting && l.Queued == 2 {
				return true
			}
		}
		return false
	})
	first := h.requests()[0]
	if _, err := e.Steer(steer.Change{Op: steer.KeywordAdd, Site: "chirp", Keywords: []string{"storm"}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the new keyword's three searches", func() bool { return len(h.requests()) >= 4 })
	got := h.requests()
	if want := []string{first, "storm/1", "storm/2", "storm/3"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("requests %v, want %v: the operator's searches go during the lane's pause, before its next page", got, want)
	}
	for i, g := range h.gaps() {
		if g < 100*time.Millisecond {
			t.Errorf("request %d (%s) came %v after the last answer ended; the host's gap is 100 ms", i+2, got[i+1], g)
		}
	}
	waitFor(t, "the lane back in its pause with flood's two other pages", func() bool {
		for _, l := range e.Snapshot().Lanes {
			if l.Status == view.LaneWaiting && l.Queued == 2 {
				return true
			}
		}
		return false
	})
}

// The operator's new search reaches the lane board when the command is given, not
// when the store's write batch that inserts it commits. The store here keeps its
// batches open for an hour (only a flush commits them): the crawl's own searches
// wait for it, the operator's goes at once. Before, it waited for the batch too.
// When the batch commits (the :seed add below flushes it), the confirmed insert
// queues nothing a second time: every search is fetched once.
func TestKeywordSearchGoesBeforeTheStoreBatch(t *testing.T) {
	t.Parallel()
	h := &searchHost{}
	srv := httptest.NewServer(h)
	defer srv.Close()
	o := searchOptions(t, srv)
	o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, 3*time.Millisecond
	o.Store = store.Options{BatchDelay: time.Hour}
	e := startEngine(t, o)
	if _, err := e.Steer(steer.Change{Op: steer.KeywordAdd, Site: "chirp", Keywords: []string{"storm"}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the new keyword's searches, with the store's batch still open", func() bool { return len(h.requests()) >= 3 })
	if got := h.requests(); strings.Join(got, " ") != "storm/1 storm/2 storm/3" {
		t.Fatalf("requests %v: want the operator's three searches first (the crawl's own wait for the store)", got)
	}
	seed := srv.URL + "/search?q=seed"
	if _, err := e.Steer(steer.Change{Op: steer.SeedAdd, URL: seed}); err != nil { // flushes the store first
		t.Fatal(err)
	}
	waitFor(t, "flood's searches and the seed fetched, every lane retired", func() bool {
		s := e.Snapshot()
		return h.count("flood/3") == 1 && h.count("seed/") == 1 && len(s.Lanes) == 0 && s.QueueDepth == 0
	})
	for _, req := range []string{"storm/1", "storm/2", "storm/3", "flood/1", "flood/2", "flood/3", "seed/"} {
		if n := h.count(req); n != 1 {
			t.Errorf("%s requested %d times, want once (all: %v)", req, n, h.requests())
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	withStore(t, o.DB, func(st *store.Store) {
		for p := 1; p <= 3; p++ {
			u := srv.URL + "/search?q=storm&page=" + fmt.Sprint(p)
			n, err := frontier.Normalize(u)
			if err != nil {
				t.Fatal(err)
			}
			row, err := st.URLState(n)
			if err != nil || row.State != store.Processed {
				t.Errorf("%s in the store: %+v %v, want processed", u, row, err)
			}
		}
	})
}
