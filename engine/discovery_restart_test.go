package engine

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/embedded"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// restartRig runs a crawl, alone or as a master over one worker (M4), that can be
// stopped and started again on the same store.
type restartRig struct {
	t         *testing.T
	o         config.Options
	clustered bool
	srv       *embedded.Server
	worker    *Worker
}

func newRestartRig(t *testing.T, o config.Options, clustered bool) *restartRig {
	r := &restartRig{t: t, o: o, clustered: clustered}
	if clustered {
		srv, err := embedded.Start(embedded.Options{Listen: "127.0.0.1:0", StoreDir: filepath.Join(t.TempDir(), "nats"), Token: "restart-token-0123456789"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Shutdown)
		r.srv = srv
	}
	return r
}

func (r *restartRig) conn(name string) *cluster.Conn {
	c, err := cluster.Connect(r.srv.ClientURL(), cluster.ClientOptions{Name: name, Token: "restart-token-0123456789"})
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(c.Close)
	return c
}

// start starts the crawl (the master, and the worker the first time).
func (r *restartRig) start() *Engine {
	r.t.Helper()
	if !r.clustered {
		return startEngine(r.t, r.o)
	}
	// No worker is taken for dead here (Timeout a minute, not 3 heartbeats): a loaded
	// box stalling the process for a second would bury the worker and drop what it
	// held as late, a dead worker's at-least-once delivery, not these tests' subject.
	m := startMaster(r.t, r.o, config.MasterOptions{Conn: r.conn("master"), HeartbeatEvery: 300 * time.Millisecond, Timeout: time.Minute})
	if r.worker == nil {
		w := startWorker(r.t, config.WorkerOptions{Conn: r.conn("w1"), Node: "w1", Egress: []string{"bind:127.0.0.3"}, AllowPrivate: []string{"127.0.0.0/8"}})
		r.worker = w
	}
	return m
}

// stop closes the crawl. A master is closed at a moment its worker holds no task:
// a URL handed out at the stop waits, in the restarted master, for the lease it
// was granted under (MasterOptions.Timeout, a minute here) in case the worker
// still reports it, which is not what these tests are about, and a loaded run
// spent that minute waiting. A hand-out between the look and the close only
// brings that wait back.
func (r *restartRig) stop(e *Engine) {
	r.t.Helper()
	if r.clustered {
		waitFor(r.t, "the worker holding no task", func() bool {
			for _, n := range e.Snapshot().Nodes {
				if n.Queue > 0 {
					return false
				}
			}
			return true
		})
	}
	if err := e.Close(); err != nil {
		r.t.Fatal(err)
	}
}

// readLog records when a document was served.
type readLog struct {
	mu sync.Mutex
	at []time.Time
}

func (l *readLog) add() {
	l.mu.Lock()
	l.at = append(l.at, time.Now())
	l.mu.Unlock()
}

func (l *readLog) times() []time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]time.Time(nil), l.at...)
}

// A restarted crawl polls a feed at the pace it had learned, and keeps that pace:
// the feed is read at its learned next poll (not the prior's, half the longest
// interval), and the read right after the restart is not taken for a burst of news.
// Before, that read counted every item of the feed as new (nothing tells a restarted
// crawl what the feed's last read listed, and its dedupe filter starts empty), took
// the feed for full and read it again at min_poll, then several times faster than it
// had learned for the day its rate takes to decay. Alone and as a master over a worker.
func TestPollPaceIsKeptAfterRestart(t *testing.T) {
	t.Parallel()
	for _, clustered := range []bool{false, true} {
		t.Run(map[bool]string{false: "alone", true: "master"}[clustered], func(t *testing.T) {
			t.Parallel() // each has its own site and crawl: their polls' paces overlap
			s := newDiscoSite(t)
			h := s.host
			var reads readLog
			s.raw["/feed.xml"] = func(int) (string, []byte) { // the same five items: a quiet feed
				reads.add()
				var b strings.Builder
				b.WriteString(`<rss version="2.0"><channel><title>quiet</title>`)
				for i := 1; i <= 5; i++ {
					fmt.Fprintf(&b, `<item><link>http://%s/i/%d</link></item>`, h, i)
					s.mu.Lock()
					s.pages[fmt.Sprintf("/i/%d", i)] = versionText(i)
					s.mu.Unlock()
				}
				b.WriteString(`</channel></rss>`)
				return "application/rss+xml", []byte(b.String())
			}
			s.pages["/"] = `<html><head><link rel="alternate" type="application/rss+xml" href="/feed.xml"></head><body>front</body></html>`
			feed := "http://" + h + "/feed.xml"
			o := discoveryPollOptions(t, "http://"+h+"/")
			o.Discovery.Probe = config.ProbeOff
			const maxPoll = 1500 * time.Millisecond
			o.Discovery.MinPoll, o.Discovery.MaxPoll = 50*time.Millisecond, maxPoll
			rig := newRestartRig(t, o, clustered)

			e := rig.start()
			waitFor(t, "three reads of the feed, the last one learned from", func() bool {
				at := reads.times()
				return len(at) >= 3 && e.disc.Poller().Next(feed).After(at[len(at)-1])
			})
			learned := e.disc.Poller().Interval(feed)
			rig.stop(e)
			before := reads.times()
			if learned < maxPoll*9/10 {
				t.Fatalf("a quiet feed learned an interval of %v, want about max_poll %v: nothing to tell from the prior's %v", learned, maxPoll, maxPoll/2)
			}

			e = rig.start()
			waitFor(t, "two reads of the feed after the restart", func() bool {
				return len(reads.times()) >= len(before)+2
			})
			after := reads.times()[len(before):]
			if gap := after[0].Sub(before[len(before)-1]); gap < learned*8/10 {
				t.Errorf("first read after the restart %v after the last one before it, want its learned interval %v (the prior's is %v)", gap, learned, maxPoll/2)
			}
			if gap := after[1].Sub(after[0]); gap < learned*8/10 {
				t.Errorf("second read after the restart %v after the first, want its learned interval %v: the first was taken for news (now %v, rate %.1f/h)",
					gap, learned, e.disc.Poller().Interval(feed), e.disc.Poller().Rate(feed))
			}
		})
	}
}

// A site whose sitemap dates were found honest before a restart is still trusted
// after it, from the first read on: a new page that its sitemap lists with a date
// waits for its date (as before the restart), while an undated one gets the blind
// first refetch. Before, the restarted crawl forgot how many of the site's sitemaps
// it had read, and one read cannot show a lastmod that is always "now": the dated
// page got the blind refetch too, until the sitemap had been read twice again.
func TestHonestSitemapIsTrustedRightAfterRestart(t *testing.T) {
	t.Parallel()
	for _, clustered := range []bool{false, true} {
		t.Run(map[bool]string{false: "alone", true: "master"}[clustered], func(t *testing.T) {
			t.Parallel() // each has its own site and crawl: their polls' paces overlap
			s := newDiscoSite(t)
			h := s.host
			var mu sync.Mutex
			fresh := false // the sitemap lists the new stories (after the restart)
			s.raw["/sitemap.xml"] = func(int) (string, []byte) {
				var b strings.Builder
				b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
				for i := 1; i <= 3; i++ { // few: what their first refetches show plans no new page of the site yet
					fmt.Fprintf(&b, `<url><loc>http://%s/story/%d</loc><lastmod>2026-01-0%dT00:00:00Z</lastmod></url>`, h, i, i)
				}
				mu.Lock()
				if fresh {
					fmt.Fprintf(&b, `<url><loc>http://%s/story/dated</loc><lastmod>2026-02-01T00:00:00Z</lastmod></url>`, h)
					fmt.Fprintf(&b, `<url><loc>http://%s/story/undated</loc></url>`, h)
				}
				mu.Unlock()
				b.WriteString(`</urlset>`)
				return "application/xml", []byte(b.String())
			}
			s.robots = "Sitemap: http://" + h + "/sitemap.xml\n"
			s.pages["/"] = `<html><body><p>front page</p></body></html>`
			for _, p := range []string{"1", "2", "3", "dated", "undated"} {
				s.pages["/story/"+p] = `<html><body><p>the ` + p + ` story</p></body></html>`
			}
			o := discoveryPollOptions(t, "http://"+h+"/")
			o.Discovery.Probe = config.ProbeOff
			o.Revisit.Initial = 100 * time.Millisecond
			rig := newRestartRig(t, o, clustered)
			e := rig.start()
			waitFor(t, "three reads of the sitemap", func() bool { return s.requested("/sitemap.xml") >= 3 })
			rig.stop(e)
			mu.Lock()
			fresh = true
			mu.Unlock()
			rig.start()
			// Listed at the same read, the dated story first: its blind refetch
			// would fall due first.
			waitFor(t, "the undated story's blind refetch", func() bool { return s.requested("/story/undated") >= 2 })
			if n := s.requested("/story/dated"); n != 1 {
				t.Errorf("the dated story of a trusted sitemap was fetched %d times right after the restart: want once (its date did not move)", n)
			}
		})
	}
}

// A site whose sitemap dates move at every read while its pages never change lost
// its trust before the restart (hinted refetches found nothing new); after the
// restart its moved dates are still ignored, and its pages are not refetched for
// them. If the evidence were not kept, the restarted crawl would trust the site
// afresh and refetch every page at each read until five more refetches had shown the
// lie again. Alone and as a master over a worker.
func TestLyingSiteStaysUntrustedAfterRestart(t *testing.T) {
	t.Parallel()
	for _, clustered := range []bool{false, true} {
		t.Run(map[bool]string{false: "alone", true: "master"}[clustered], func(t *testing.T) {
			t.Parallel() // each has its own site and crawl: their polls' paces overlap
			s := newDiscoSite(t)
			h := s.host
			datedSitemap(s, func(int) string {
				// Dated two minutes ahead of the serving time: never "now" (that is
				// caught otherwise), always moved since the last read.
				return time.Now().Add(2 * time.Minute).UTC().Format(time.RFC3339Nano)
			})
			o := discoveryPollOptions(t, "http://"+h+"/")
			o.Discovery.Probe = config.ProbeOff
			rig := newRestartRig(t, o, clustered)
			site := func(e *Engine) view.SiteDiscovery {
				for _, v := range e.disc.View() {
					if len(v.Sitemaps) > 0 {
						return v
					}
				}
				return view.SiteDiscovery{DatesTrusted: true}
			}
			e := rig.start()
			waitFor(t, "the site's dates found lying, no hinted refetch left", func() bool {
				pending := e.disc.Hinted()
				return !site(e).DatesTrusted && pending == 0
			})
			rig.stop(e)
			fetched := func() (n int) {
				for i := 1; i <= 6; i++ {
					n += s.requested(fmt.Sprintf("/p%d", i))
				}
				return n
			}
			before, reads := fetched(), s.requested("/sitemap.xml")

			e = rig.start()
			// The first read after the restart has no dates of its own to compare
			// with; the next ones move all six.
			waitFor(t, "date moves judged after the restart", func() bool {
				v := site(e)
				return s.requested("/sitemap.xml") >= reads+3 && v.Hints+v.Ignored >= 6
			})
			v := site(e)
			if v.DatesTrusted || v.Hints != 0 {
				t.Errorf("after the restart the lying site is trusted=%v with %d hints followed (%d ignored): want its dates ignored", v.DatesTrusted, v.Hints, v.Ignored)
			}
			if n := fetched() - before; n != 0 {
				t.Errorf("%d page refetches after the restart for dates that lie", n)
			}
		})
	}
}

// A page whose sitemap date moved while the crawl was stopped is refetched at the
// sitemap's first read after the restart, when its stored copy is older than that
// date. Before, the dates each entry gave were not kept and a date met for the first
// time was no hint: the change waited for the page's revisit schedule (an hour here).
func TestDateMovedWhileStoppedIsAHint(t *testing.T) {
	t.Parallel()
	s := newDiscoSite(t)
	h := s.host
	var mu sync.Mutex
	p1 := "2026-01-01T00:00:00Z"
	datedSitemap(s, func(i int) string {
		if i == 1 {
			mu.Lock()
			defer mu.Unlock()
			return p1
		}
		return fmt.Sprintf("2026-01-0%dT00:00:00Z", i)
	})
	o := discoveryPollOptions(t, "http://"+h+"/")
	o.Discovery.Probe = config.ProbeOff
	e := startEngine(t, o)
	waitFor(t, "three reads of the sitemap, every page stored", func() bool {
		return s.requested("/sitemap.xml") >= 3 && e.Snapshot().Totals.PagesStored >= 8
	})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock() // p1 changes while the crawl is stopped
	p1 = time.Now().UTC().Format(time.RFC3339Nano)
	mu.Unlock()
	s.mu.Lock()
	s.pages["/p1"] = versionText(100)
	s.mu.Unlock()
	startEngine(t, o)
	waitFor(t, "/p1 refetched for its moved date", func() bool { return s.requested("/p1") >= 2 })
	for i := 2; i <= 6; i++ {
		if n := s.requested(fmt.Sprintf("/p%d", i)); n != 1 {
			t.Errorf("/p%d, whose date did not move, fetched %d times", i, n)
		}
	}
}

// datedSitemap makes s a site whose robots.txt names /sitemap.xml, which lists the
// pages /p1../p6 (each a versionText) dated lastmod(i) at every read.
func datedSitemap(s *discoSite, lastmod func(i int) string) {
	h := s.host
	s.raw["/sitemap.xml"] = func(int) (string, []byte) {
		var b strings.Builder
		b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for i := 1; i <= 6; i++ {
			fmt.Fprintf(&b, "<url><loc>http://%s/p%d</loc><lastmod>%s</lastmod></url>", h, i, lastmod(i))
		}
		b.WriteString(`</urlset>`)
		return "application/xml", []byte(b.String())
	}
	for i := 1; i <= 6; i++ {
		s.pages[fmt.Sprintf("/p%d", i)] = versionText(i)
	}
	s.robots = "Sitemap: http://" + h + "/sitemap.xml\n"
	s.pages["/"] = `<html><body><p>front page</p></body></html>`
}
