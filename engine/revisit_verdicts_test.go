package engine

import (
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/page/change"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// articleServer serves one page, /a, whose answers a test scripts one by one, and
// records the conditional headers each request carried.
type articleServer struct {
	mu      sync.Mutex
	answers []func(w http.ResponseWriter)
	ims     []string // If-Modified-Since of each request to /a
}

func (s *articleServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/a" {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	s.ims = append(s.ims, r.Header.Get("If-Modified-Since"))
	answer := s.answers[0]
	if len(s.answers) > 1 {
		s.answers = s.answers[1:]
	}
	s.mu.Unlock()
	answer(w)
}

func (s *articleServer) next(a func(w http.ResponseWriter)) {
	s.mu.Lock()
	s.answers = []func(w http.ResponseWriter){a}
	s.mu.Unlock()
}

// article renders an article page: its paragraphs, and a stamp and an ad that change
// on every answer (boilerplate).
func article(paras []string, stamp string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Last-Modified", "Mon, 02 Jan 2006 15:04:05 GMT") // no ETag: If-Modified-Since
		fmt.Fprintf(w, "<html><head><title>City news</title></head><body><div class=meta>Updated %s</div>"+
			"<aside class=ad>Buy now %s</aside><article>", stamp, stamp)
		for _, p := range paras {
			fmt.Fprintf(w, "<p>%s</p>", p)
		}
		fmt.Fprint(w, "</article></body></html>")
	}
}

var (
	subwayArticle = []string{
		"The city opened its third subway line this morning, a twenty-eight kilometre route with twenty-one stations linking the new eastern district with the old town in the west.",
		"At the opening ceremony the head of the transport department said trains would run every three minutes at peak hours, taking about one hundred and fifty thousand daily riders off the buses.",
		"Residents along the route welcomed the line. One office worker said her commute used to take more than an hour with two bus changes, and now takes thirty-five minutes by train.",
		"The line was built with several energy-saving measures: stations are lit entirely by light-emitting diodes, and the energy recovered when trains brake is fed back into the grid.",
	}
	harvestArticle = []string{
		"Farmers across the northern provinces brought in a record harvest of maize and soybeans this autumn, with average yields about six percent above last year according to the agriculture ministry.",
		"Agronomists credit evenly spread summer rain, timely control of pests and disease, and the steady adoption of improved seed varieties for the larger crop.",
		"At one cooperative, a fleet of combine harvesters worked the fields in long rows; its manager said machines had cut the length of the harvest season nearly in half.",
		"Grain purchasing has begun across the region, and buyers have been told to apply quality standards strictly and pay fair prices for better grain to protect growers' income.",
	}
)

// A refetch is judged on the page's main text: an empty answer or an error teaches
// nothing (never a "change", never an "unchanged"), a 304 to If-Modified-Since is
// unchanged, churned boilerplate is unchanged, a new article is a change; a failed
// refetch keeps the stored page.
func TestRevisitVerdictsOfOneRefetchedPage(t *testing.T) {
	t.Parallel()
	srv := &articleServer{answers: []func(http.ResponseWriter){article(subwayArticle, "08:00")}}
	ln, err := net.Listen("tcp", "127.0.0.31:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.31: %v", err)
	}
	hs := &http.Server{Handler: srv}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	pageURL := "http://" + ln.Addr().String() + "/a"

	o := testDefaults()
	o.Seeds = []string{pageURL}
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Lanes.DelayMin, o.Lanes.DelayMax = 0, time.Millisecond
	o.HostRate = 0
	o.Fetch.Retries = 0
	o.Revisit.Enabled = false // the test refetches with RevisitNow
	o.Revisit.Policy = revisit.PolicySeed
	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second)

	steps := []struct {
		name   string
		answer func(w http.ResponseWriter)
		want   view.RevisitStats // counters after the step
		x      int
	}{
		{"empty answer", func(w http.ResponseWriter) { w.Header().Set("Content-Type", "text/html") },
			view.RevisitStats{Refetches: 1, Unknown: 1, Requeued: 1}, 1},
		{"304", func(w http.ResponseWriter) { w.WriteHeader(http.StatusNotModified) },
			view.RevisitStats{Refetches: 2, Unknown: 1, NotModified: 1, Requeued: 2}, 1},
		{"boilerplate churned", article(subwayArticle, "19:42"),
			view.RevisitStats{Refetches: 3, Unknown: 1, NotModified: 1, Requeued: 3}, 1},
		{"another article", article(harvestArticle, "20:15"),
			view.RevisitStats{Refetches: 4, Unknown: 1, NotModified: 1, Changes: 1, Requeued: 4}, 2},
		{"server error", func(w http.ResponseWriter) { w.WriteHeader(http.StatusInternalServerError) },
			view.RevisitStats{Refetches: 5, Unknown: 2, NotModified: 1, Changes: 1, Requeued: 5}, 2},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			srv.next(s.answer)
			// The last step's refetch is counted before its URL leaves the queue
			// (under load "already queued for a revisit" came back here): ask until
			// it is out.
			waitFor(t, "revisit now taken", func() bool {
				err := e.RevisitNow(pageURL)
				if err != nil && !strings.Contains(err.Error(), "already queued") {
					t.Fatal(err)
				}
				return err == nil
			})
			waitFor(t, "the refetch", func() bool {
				return e.Stats().Revisit.Refetches == s.want.Refetches && e.Snapshot().Revisit.Queued == 0
			})
			if got := *e.Stats().Revisit; got != s.want {
				t.Fatalf("stats %+v, want %+v", got, s.want)
			}
			if p, ok := e.rv.Recent.Get(pageURL); !ok || p.X != s.x {
				t.Fatalf("x = %d, want %d", p.X, s.x)
			}
		})
	}
	// The stats count the refetch when its result is recorded; the store has it
	// once its batch lands (under load the URL was still in progress here).
	waitFor(t, "the last refetch's result in the store", func() bool {
		if err := e.st.Flush(); err != nil {
			t.Fatal(err)
		}
		u, err := e.st.URLState(pageURL)
		return err == nil && u.State != store.InProgress
	})
	srv.mu.Lock()
	ims := slices.Clone(srv.ims)
	srv.mu.Unlock()
	if ims[0] != "" || slices.Contains(ims[1:], "") {
		t.Errorf("If-Modified-Since per request %q: none on the first fetch, the stored Last-Modified on every refetch "+
			"(an empty answer must not replace the stored copy)", ims)
	}
	u, err := e.st.URLState(pageURL)
	if err != nil || u.State != store.Processed || u.ErrKind != "http_5xx" {
		t.Errorf("after a failed refetch the URL is %+v (%v); want processed, with the error kind", u, err)
	}
	stored, err := e.st.Page(pageURL)
	if err != nil || !strings.Contains(string(stored.Body), "harvest") {
		t.Errorf("after a failed refetch the stored pageURL is %v %q; want the last good copy", err, stored.Body)
	}
	r, err := e.st.Revisit(pageURL)
	if err != nil || !r.Next.After(r.Last) || r.Next.Equal(revisit.Never) || r.Fetches != 6 {
		t.Errorf("revisit state %+v (%v): want 6 fetches and a next due time", r, err)
	}
	// The change is kept with its evidence and the replaced copy's main
	// text, which `show URL` diffs with the stored pageURL's: subway before, harvest now.
	c := r.Change
	if c == nil || c.ChangeDistance < 0 || revisit.ChangeReason(c.ChangeReason) == revisit.ReasonNone ||
		!strings.Contains(c.PrevText, "subway") || c.Fallback {
		t.Fatalf("change signal %+v", c)
	}
	now, _ := page.PageText(stored.Body, stored.ContentType)
	if sum := change.Summarize(c.PrevText, now); !strings.Contains(sum, "+ ") || !strings.Contains(sum, "- ") ||
		!strings.Contains(now, "harvest") {
		t.Errorf("summary of the change:\n%s", sum)
	}
}
