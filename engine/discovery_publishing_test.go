package engine

import (
	"fmt"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

// publishingScale runs the publishing sandbox 600x real time: a web hour in 6 s.
const publishingScale = 600

// publishingBacklog is how long the sandbox's sites have been publishing when the
// crawl starts (web time): two hours give the crawl a past to catch up with (a few
// dozen articles), where the sandbox's default three days gave 1,200, which a
// loaded box took minutes to fetch.
const publishingBacklog = 2 * time.Hour

// publishingArticles is how many articles the announcing sites publish in the
// measured window; the window lasts until they are out, however long the crawl
// took to get there.
const publishingArticles = 8

// publishingMaxReads is how many reads of its site's feeds and sitemaps may go by
// between an article's publication and its fetch. An idle box takes 3 at most, a
// loaded one up to 15 (the reads keep their timers while the lanes slow down); an
// article queued behind the crawl's other pages, or found only when an entry page is
// fetched again, would see dozens.
const publishingMaxReads = 20

// On the sandbox's publishing sites (an RSS feed, an Atom feed, a sitemap with
// honest lastmod, a news sitemap, a sitemap index; and a site that announces nothing
// and one whose lastmod lies, which the test does not judge) the crawl reads the feeds
// and sitemaps through the lanes, with no anti-bot violation and no ban, and asks
// again with conditional GET. Once it has caught up with the sites' past, every
// article an announcing site publishes is fetched within a few reads of its site's
// feeds and sitemaps (on an idle box, about a second after publication), and no
// feed or sitemap is read more often than discovery.min_poll. Pages are fetched
// once: an article published later is found only through a feed or sitemap. Before,
// no feed or sitemap was ever requested.
//
// Everything is judged by the crawl's own steps, never by wall-clock time: the
// window opens when the past is fetched, lasts for publishingArticles articles, and
// an article is late when publishingMaxReads of its site's reads went by without its
// fetch. A loaded box takes longer at every step and is judged the same.
func TestPublishingSandboxCrawl(t *testing.T) {
	t.Parallel()
	cfg := sandbox.DefaultConfig()
	cfg.Seed, cfg.Hosts, cfg.Scale, cfg.Publishing = 3, 40, publishingScale, true
	cfg.PublishBacklog = publishingBacklog
	cfg.Faults.Shares = nil
	cfg.DNS.NXDomainShare, cfg.DNS.ServFailShare, cfg.DNS.TimeoutShare = 0, 0, 0
	cfg.DNS.LatencyMin, cfg.DNS.LatencyMax = 0, time.Millisecond
	cfg.Robots.CrawlDelayShare = 0
	sb, err := sandbox.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	started := sb.Now()
	o := testDefaults()
	var announcing []sandbox.PublishingSite
	siteOf := map[string]string{} // host -> site domain
	for _, s := range sb.Web().PublishingSites() {
		o.Seeds = append(o.Seeds, s.Entry)
		for _, h := range s.Hosts {
			siteOf[h] = s.Domain
		}
		if s.Announce != sandbox.AnnounceNone && s.Announce != sandbox.AnnounceLyingLM {
			announcing = append(announcing, s)
		}
	}
	// published lists the articles the announcing sites published in [from, to] (web).
	published := func(from, to time.Time) []sandbox.Article {
		var out []sandbox.Article
		for _, s := range announcing {
			out = append(out, sb.Web().Published(s.Domain, from, to)...)
		}
		return out
	}
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	o.DNSServers = []string{sb.DNSAddr()}
	o.AllowPrivate = []string{"127.0.0.0/8"}
	gap := time.Duration(float64(cfg.AntiBot.HumanGap) / publishingScale)
	o.Lanes.Max = 8
	o.Lanes.DelayMin, o.Lanes.DelayMax = gap*5/4, gap*3
	o.HostRate = publishingScale
	atWebPace(&o, publishingScale)
	o.Revisit = o.Revisit.Scaled(publishingScale)
	// Pages are fetched once (their class windows close at once); feeds and sitemaps
	// are read on the Poller's own schedule, which windows do not bound. Refetched
	// pages would keep every lane's queue full, a due read waiting behind them for as
	// long as the box takes to fetch them, and would find the new articles on entry
	// pages, not through the reads this test judges.
	for _, c := range revisit.Classes {
		o.Revisit.Windows[c] = time.Nanosecond
	}
	o.Discovery.Probe = config.ProbeAll
	o.Discovery.MinPoll, o.Discovery.MaxPoll = 100*time.Millisecond, 3*time.Second
	e := startEngine(t, o)

	// fetched maps each URL answered 200 to the start of its first such request.
	fetched := func(reqs []sandbox.Request) map[string]time.Time {
		got := map[string]time.Time{}
		for _, r := range reqs {
			if _, ok := got[r.URL]; !ok && r.Status == http.StatusOK {
				got[r.URL] = r.Start
			}
		}
		return got
	}
	// readsAfter counts the reads of site's feeds and sitemaps that started after
	// pub (real time) and ended before until (zero: not yet).
	readsAfter := func(reqs []sandbox.Request, site string, pub, until time.Time) int {
		n := 0
		for _, r := range reqs {
			if r.Kind == sandbox.KindDiscovery && siteOf[r.Host] == site && r.Start.After(pub) && (until.IsZero() || r.End.Before(until)) {
				n++
			}
		}
		return n
	}
	// rereads finds the reads of an announcing site's feed or sitemap that came
	// after a read of the same document with no article published between the start
	// of the one and the end of the other: the document's ETag had not moved, and a
	// conditional GET is answered 304. It returns how many there are and those
	// answered in full.
	isAnnouncing := map[string]bool{}
	for _, s := range announcing {
		isAnnouncing[s.Domain] = true
	}
	rereads := func(reqs []sandbox.Request) (n int, full []string) {
		bySource := map[string][]sandbox.Request{}
		for _, r := range reqs {
			if r.Kind == sandbox.KindDiscovery && isAnnouncing[siteOf[r.Host]] && r.Status != 0 {
				bySource[r.URL] = append(bySource[r.URL], r)
			}
		}
		for src, rs := range bySource {
			sort.Slice(rs, func(i, j int) bool { return rs[i].Start.Before(rs[j].Start) })
			for i := 1; i < len(rs); i++ {
				if len(sb.Web().Published(siteOf[rs[i].Host], sb.WebTime(rs[i-1].Start), sb.WebTime(rs[i].End))) > 0 {
					continue
				}
				n++
				if rs[i].Status != http.StatusNotModified {
					full = append(full, fmt.Sprintf("%s (%d)", src, rs[i].Status))
				}
			}
		}
		return n, full
	}

	// The crawl has caught up with the sites' past once it fetched every article the
	// announcing sites had published before it started and read a feed or sitemap of
	// each (until then a due read waits on its lane behind that past: how long is the
	// throughput bench's business, not this test's).
	past := published(time.Time{}, started)
	var behind []string
	for deadline := time.Now().Add(crawlPatience); ; time.Sleep(10 * time.Millisecond) {
		reqs := sb.Truth().Requests()
		got := fetched(reqs)
		behind = behind[:0]
		for _, a := range past {
			if _, ok := got[a.URL]; !ok {
				behind = append(behind, a.URL)
			}
		}
		read := map[string]bool{}
		for _, r := range reqs {
			if r.Kind == sandbox.KindDiscovery && r.Status == http.StatusOK {
				read[siteOf[r.Host]] = true
			}
		}
		for _, s := range announcing {
			if !read[s.Domain] {
				behind = append(behind, "a feed or sitemap of "+s.Domain)
			}
		}
		if len(behind) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the crawl did not catch up with the sites' past in %v: %d of %d past articles or sites' first reads missing, e.g. %v; %+v",
				crawlPatience, len(behind), len(past)+len(announcing), behind[:min(3, len(behind))], e.Stats())
		}
	}
	from := sb.Now()
	waitFor(t, fmt.Sprintf("%d articles published", publishingArticles), func() bool {
		return len(published(from, sb.Now())) >= publishingArticles
	})
	to := sb.Now()
	want := published(from, to)

	// Wait until every article is fetched and a document was read again with nothing
	// new in it (on a loaded box the window's reads may all have found news), or
	// until an article is late: more than publishingMaxReads reads of its site went
	// by after its publication. The guard only ends a crawl that stopped reading
	// altogether.
	var missing []sandbox.Article
	var late string
	for deadline := time.Now().Add(patience); ; time.Sleep(10 * time.Millisecond) {
		reqs := sb.Truth().Requests()
		got := fetched(reqs)
		missing, late = missing[:0], ""
		for _, a := range want {
			if _, ok := got[a.URL]; !ok {
				missing = append(missing, a)
				if readsAfter(reqs, siteOf[a.Host], sb.RealTime(a.Published), time.Time{}) > publishingMaxReads {
					late = a.URL
				}
			}
		}
		if n, _ := rereads(reqs); (len(missing) == 0 && n > 0) || late != "" || time.Now().After(deadline) {
			break
		}
	}
	e.Close()
	reqs := sb.Truth().Requests()
	if len(missing) > 0 {
		reads := map[string]int{}
		for _, r := range reqs {
			if r.Kind == sandbox.KindDiscovery || strings.HasSuffix(r.URL, "/robots.txt") {
				reads[fmt.Sprintf("%s %d", r.URL, r.Status)]++
			}
		}
		why := fmt.Sprintf("%s not fetched after %d reads of its site's feeds and sitemaps", late, publishingMaxReads)
		if late == "" {
			why = fmt.Sprintf("%s not fetched, and its site's feeds and sitemaps not read %d times, in %v", missing[0].URL, publishingMaxReads, patience)
		}
		t.Fatalf("%d of %d articles in the window not fetched: %s; feed/sitemap reads: %v; discovery %+v",
			len(missing), len(want), why, reads, e.Snapshot().Discovery)
	}

	// How many of its site's reads went by before each article's fetch: the first
	// read that lists it queues it ahead of its lane's queue, so a few at most.
	got := fetched(reqs)
	worstReads, worstURL := 0, ""
	var slowest time.Duration
	for _, a := range want {
		pub := sb.RealTime(a.Published)
		if n := readsAfter(reqs, siteOf[a.Host], pub, got[a.URL]); n > worstReads {
			worstReads, worstURL = n, a.URL
		}
		slowest = max(slowest, got[a.URL].Sub(pub))
	}
	if worstReads > publishingMaxReads {
		t.Errorf("%d reads of its site's feeds and sitemaps went by between %s's publication and its fetch: want it fetched within a few (%d)", worstReads, worstURL, publishingMaxReads)
	}

	// The reads: conditional (a document read again with nothing new in it is
	// answered 304), never more often than min_poll a source, within the anti-bot
	// rule.
	docs, notModified := 0, 0
	bySource := map[string][]time.Time{}
	violations := 0
	for _, r := range reqs {
		if r.Kind == sandbox.KindDiscovery {
			docs++
			bySource[r.URL] = append(bySource[r.URL], r.Start)
			if r.Status == http.StatusNotModified {
				notModified++
			}
		}
		if r.Violation || r.Banned {
			violations++
			if violations < 6 {
				t.Logf("violation: %s %s %v", r.Kind, r.URL, r.Start.Format("15:04:05.000"))
			}
		}
	}
	unchanged, full := rereads(reqs)
	if unchanged == 0 || len(full) > 0 {
		t.Errorf("%d reads of a feed or sitemap with nothing new since its read before, %d of them answered in full (%v): want each conditional, answered 304", unchanged, len(full), full)
	}
	for src, starts := range bySource {
		sort.Slice(starts, func(i, j int) bool { return starts[i].Before(starts[j]) })
		for i := 1; i < len(starts); i++ {
			if d := starts[i].Sub(starts[i-1]); d < o.Discovery.MinPoll {
				t.Errorf("%s read again %v after its read before: want at least discovery.min_poll (%v) between reads", src, d, o.Discovery.MinPoll)
				break
			}
		}
	}
	if violations > 0 || len(sb.Truth().Bans()) > 0 {
		t.Errorf("%d anti-bot violations, %d bans: discovery went around the politeness gate", violations, len(sb.Truth().Bans()))
	}
	t.Logf("past of %d articles fetched; %d articles in the window, all fetched, slowest %v after publication (%d of its site's reads before it at most); %d feed/sitemap reads, %d of them 304 (%d with nothing new)",
		len(past), len(want), slowest, worstReads, docs, notModified, unchanged)
}
