package engine_test

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
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

// variantSite serves a home page linking articles 1-5 each under several URLs (a
// campaign tag, a click id, a servlet session id, the configured "from" parameter)
// articles 6-8 by their AMP copies only, and articles 9-10 by their AMP copies
// first, then their own URLs. An AMP copy's rel=canonical is its article, which it
// also links to, tagged and plain. The site counts the requests
// for each article, whatever URL asked.
type variantSite struct {
	mu       sync.Mutex
	requests map[string]int // article number -> requests for it
}

func (s *variantSite) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		var b strings.Builder
		b.WriteString("<html><body><h1>Home</h1>")
		for i := 1; i <= 5; i++ {
			fmt.Fprintf(&b, `<a href="/news/%d?utm_source=home&utm_medium=web">a</a>`, i)
			fmt.Fprintf(&b, `<a href="/news/%d?fbclid=IwAR%dxYz">b</a>`, i, i)
			fmt.Fprintf(&b, `<a href="/news/%d;jsessionid=0A1B2C3D4E5F6071829%d">c</a>`, i, i)
			fmt.Fprintf(&b, `<a href="/news/%d?from=rss">d</a>`, i)
		}
		for i := 6; i <= 8; i++ {
			fmt.Fprintf(&b, `<a href="/amp/news/%d">amp</a>`, i)
		}
		// Articles 9 and 10 under both URLs: the article is queued already when
		// its AMP copy, fetched first, names it as canonical.
		for i := 9; i <= 10; i++ {
			fmt.Fprintf(&b, `<a href="/amp/news/%d">amp</a><a href="/news/%d">full</a>`, i, i)
		}
		b.WriteString("</body></html>")
		w.Write([]byte(b.String()))
	})
	article := func(w http.ResponseWriter, r *http.Request, n, canonical string) {
		s.mu.Lock()
		s.requests[n]++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><head><link rel="canonical" href="%s"></head><body><article><h1>Story %s</h1><p>Text of story %s, long enough to be an article.</p></article></body></html>`, canonical, n, n)
	}
	mux.HandleFunc("/news/{n}", func(w http.ResponseWriter, r *http.Request) {
		article(w, r, r.PathValue("n"), "/news/"+r.PathValue("n"))
	})
	mux.HandleFunc("/amp/news/{n}", func(w http.ResponseWriter, r *http.Request) {
		n := r.PathValue("n")
		article(w, r, n, "/news/"+n)
		fmt.Fprintf(w, `<a href="/news/%s?utm_source=amp">full</a><a href="/news/%s">full</a>`, n, n)
	})
	return mux
}

// TestURLVariantsFetchedOnce: each article, linked under four URLs, is fetched once
// by default; with url_variants.keep (the crawler before) it is fetched once per
// variant. An AMP copy fetched stands for its canonical article, which is not
// fetched again, even when it was queued before the copy named it.
func TestURLVariantsFetchedOnce(t *testing.T) {
	t.Parallel()
	crawl := func(t *testing.T, keep bool) map[string]int {
		s := &variantSite{requests: map[string]int{}}
		srv := httptest.NewServer(s.handler())
		t.Cleanup(srv.Close)
		o := enginetest.DefaultOptions()
		o.DB = filepath.Join(t.TempDir(), "crawl.db")
		quickSiteOptions(&o, []string{srv.URL + "/"})
		o.Robots = false
		o.URLVariants.Keep = keep
		o.URLVariants.StripParams = []string{"from"}
		e := enginetest.CrawlToDone(t, o)
		if keep {
			return s.requests
		}
		if n := e.Stats().Skipped[front.SkipCanonicalVariant]; n == 0 {
			t.Errorf("no %s skip counted; stats %+v", front.SkipCanonicalVariant, e.Stats().Skipped)
		}
		return s.requests
	}
	t.Run("collapsed", func(t *testing.T) {
		t.Parallel()
		got := crawl(t, false)
		for i := 1; i <= 10; i++ {
			if n := got[fmt.Sprint(i)]; n != 1 {
				t.Errorf("article %d fetched %d times, want once (requests %v)", i, n, got)
			}
		}
	})
	t.Run("kept", func(t *testing.T) {
		t.Parallel()
		got := crawl(t, true)
		for i := 1; i <= 5; i++ {
			if n := got[fmt.Sprint(i)]; n < 4 {
				t.Errorf("keep: article %d fetched %d times, want every variant (4)", i, n)
			}
		}
	})
}

// TestCanonicalQueuedFetchedOnceDistributed: on a distributed crawl the master
// remembers the canonical URLs its workers' pages stand for, and a hand-out of one
// queued before (articles 9 and 10, linked after their AMP copies) ends unsent.
func TestCanonicalQueuedFetchedOnceDistributed(t *testing.T) {
	t.Parallel()
	s := &variantSite{requests: map[string]int{}}
	srv := httptest.NewServer(s.handler())
	t.Cleanup(srv.Close)
	c := prepareCluster(t, enginetest.SandboxConfig(5, 2), 300*time.Millisecond, func(o *config.Options, _ *sandbox.Sandbox) {
		quickSiteOptions(o, []string{srv.URL + "/"})
		o.Robots = false
		o.URLVariants.StripParams = []string{"from"}
	})
	c.window = 1 // a task stays at the master until the one before it is recorded
	c.startMaster()
	c.worker("w1", "127.0.0.2")
	c.waitDone(time.Minute)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 1; i <= 10; i++ {
		if n := s.requests[fmt.Sprint(i)]; n != 1 {
			t.Errorf("article %d fetched %d times, want once (requests %v)", i, n, s.requests)
		}
	}
}
