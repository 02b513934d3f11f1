package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/render"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

func init() { register("render", runRender) }

// renderSiteAddrs are the SPA web's sites (spa, mixed, error, static, hang), one
// loopback address each; renderEgress is the one address the crawl sends from:
// the sites' log tells any request from elsewhere (the browser's own network).
var (
	renderSiteAddrs = []string{"127.0.0.21", "127.0.0.22", "127.0.0.23", "127.0.0.24", "127.0.0.25"}
	renderEgress    = "127.0.0.3"
)

// renderCrawl is one crawl of a fresh SPA web.
type renderCrawl struct {
	mode    string
	pages   int64
	secs    float64
	log     []sandbox.SPARequest
	reports []render.PageReport
	pool    render.Stats
	hosts   []render.HostStats
	peakPSS int
	web     *sandbox.SPA
}

// runRender crawls the SPA web three times: plainly (render off), in auto mode
// (the mixed crawl: only the pages that need it rendered) and rendering every
// page (always); it compares auto's pages with always's, counts the static
// sites' renders, the speed against the plain crawl, the browser's memory, the
// breaks of the host gap and the requests that left from another address.
func runRender(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	articles := fs.Int("articles", 40, "articles per site")
	gap := fs.Duration("gap", 150*time.Millisecond, "the lanes' pause (lanes.delay_min = delay_max): the host gap judged")
	contexts := fs.Int("contexts", 4, "browser contexts")
	timeout := fs.Duration("timeout", 4*time.Second, "cap of one render")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if _, err := render.Find(""); err != nil {
		return nil, err
	}
	crawls := map[string]*renderCrawl{}
	for _, mode := range []string{"off", "auto", "always"} {
		c, err := renderCrawlOnce(mode, *articles, *gap, *contexts, *timeout)
		if err != nil {
			return nil, fmt.Errorf("%s crawl: %w", mode, err)
		}
		crawls[mode] = c
		fmt.Fprintf(os.Stderr, "render %-6s: %d pages in %.1f s (%.2f pages/s), pool %s\n", mode, c.pages, c.secs, float64(c.pages)/c.secs, c.pool)
		if r := c.hosts; len(r) > 0 {
			for _, h := range r {
				fmt.Fprintf(os.Stderr, "  %s: %d renders, %d failed, %d unsettled, %d requests, %v per render\n", h.Host, h.Renders, h.Failed, h.Unsettled, h.Requests, (h.Time / time.Duration(max(h.Renders, 1))).Round(time.Millisecond))
			}
		}
	}
	auto, always, plain := crawls["auto"], crawls["always"], crawls["off"]

	// Agreement: the SPA web's script-built sites (spa, mixed, error), page by
	// page: the auto crawl read the same links and about the same text.
	byURL := func(c *renderCrawl) map[string]render.Features {
		m := map[string]render.Features{}
		for _, r := range c.reports {
			m[pathOf(r.URL, c.web)] = r.Features
		}
		return m
	}
	am, wm := byURL(auto), byURL(always)
	var pages, agree int
	var disagree []string
	for k, w := range wm {
		if !strings.HasPrefix(k, "spa") && !strings.HasPrefix(k, "mixed") && !strings.HasPrefix(k, "error") {
			continue
		}
		pages++
		a, ok := am[k]
		if ok && a.Links == w.Links && math.Abs(float64(a.Text-w.Text)) <= 0.05*float64(max(w.Text, 1)) {
			agree++
		} else if len(disagree) < 5 {
			disagree = append(disagree, fmt.Sprintf("%s auto %+v always %+v", k, a, w))
		}
	}
	// A page of the script-built sites the always crawl never reached (its
	// site's home kept plain, its links unread) is one the crawl did not render
	// like a browser either: counted as disagreeing, not left out (the home of
	// the 404 shell is the error site's one page: its links are not followed).
	for _, kind := range []string{sandbox.SPASite, sandbox.MixedSite, sandbox.ErrorSite} {
		want := []string{kind + "/"}
		if kind != sandbox.ErrorSite {
			for _, p := range auto.web.TruthLinks(kind, "/") {
				want = append(want, kind+p)
			}
		}
		for _, k := range want {
			if _, ok := wm[k]; !ok {
				pages++
				if len(disagree) < 5 {
					disagree = append(disagree, k+" not reached by the always crawl")
				}
			}
		}
	}
	sort.Strings(disagree)
	for _, d := range disagree {
		fmt.Fprintln(os.Stderr, "disagree:", d)
	}
	// Static sites: renders after each host's first 5 pages.
	seen := map[string]int{}
	var later, laterRendered int
	for _, r := range auto.reports {
		site := siteOf(r.URL, auto.web)
		if site != sandbox.StaticSite {
			continue
		}
		seen[r.Host]++
		if seen[r.Host] > 5 {
			later++
			if r.Rendered {
				laterRendered++
			}
		}
	}
	wrong := 0
	for _, c := range crawls {
		for _, r := range c.log {
			if r.ClientIP != renderEgress || !strings.HasPrefix(r.UserAgent, "crawlconsole") {
				wrong++
			}
		}
	}
	breaks := 0
	for _, c := range crawls {
		breaks += sandbox.GapBreaks(c.log, *gap-10*time.Millisecond)
	}
	rendered := 0
	for _, r := range auto.reports {
		if r.Rendered {
			rendered++
		}
	}
	notes := 0
	for _, c := range []*renderCrawl{auto, always} {
		for _, r := range c.reports {
			if r.Note != "" && notes < 8 {
				notes++
				fmt.Fprintf(os.Stderr, "%s: %s: %s\n", c.mode, r.URL, r.Note)
			}
		}
	}
	out := map[string]any{
		"bench": "render", "articles": *articles, "gap_ms": gap.Milliseconds(), "contexts": *contexts,
		"pages_plain": plain.pages, "pages_auto": auto.pages, "pages_always": always.pages,
		"pages_per_s_plain": crawlRound(float64(plain.pages)/plain.secs, 2),
		"pages_per_s_auto":  crawlRound(float64(auto.pages)/auto.secs, 2),
		"rendered_auto":     rendered, "spa_pages_compared": pages,
		"agree_share":           crawlRound(float64(agree)/float64(max(pages, 1)), 4),
		"static_render_share":   crawlRound(float64(laterRendered)/float64(max(later, 1)), 4),
		"static_pages_after5":   later,
		"pages_per_s_ratio":     crawlRound((float64(auto.pages)/auto.secs)/(float64(plain.pages)/plain.secs), 3),
		"pool_rss_mb":           max(auto.peakPSS, always.peakPSS),
		"gap_breaks":            breaks,
		"wrong_egress_requests": wrong,
		"renders_failed_auto":   auto.pool.Failed,
		"unsettled_auto":        auto.pool.Unsettled,
		"unsettled_always":      always.pool.Unsettled,
	}
	return out, nil
}

func pathOf(u string, web *sandbox.SPA) string {
	site := siteOf(u, web)
	i := strings.Index(u, "://")
	rest := u[i+3:]
	if j := strings.IndexByte(rest, '/'); j >= 0 {
		return site + rest[j:]
	}
	return site + "/"
}

func siteOf(u string, web *sandbox.SPA) string {
	for _, k := range []string{sandbox.SPASite, sandbox.MixedSite, sandbox.ErrorSite, sandbox.StaticSite, sandbox.HangSite} {
		if strings.Contains(u, "//"+web.Host(k)+"/") {
			return k
		}
	}
	return ""
}

func renderCrawlOnce(mode string, articles int, gap time.Duration, contexts int, timeout time.Duration) (*renderCrawl, error) {
	web, err := sandbox.StartSPA(renderSiteAddrs, articles)
	if err != nil {
		return nil, err
	}
	defer web.Close()
	dir, err := os.MkdirTemp("", "bench-render")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	o := config.DefaultOptions()
	for _, k := range []string{sandbox.SPASite, sandbox.MixedSite, sandbox.ErrorSite, sandbox.StaticSite, sandbox.HangSite} {
		o.Seeds = append(o.Seeds, web.URL(k))
	}
	o.DB = filepath.Join(dir, "c.db")
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Egress = []string{"bind:" + renderEgress}
	o.HostRate = 0
	o.Lanes.Max = 8
	o.Lanes.DelayMin, o.Lanes.DelayMax = gap, gap
	o.Revisit.Enabled = false
	o.Discovery.Enabled = false
	o.Render.Mode = mode
	o.Render.Contexts = contexts
	o.Render.Timeout = timeout
	e, err := engine.New(o)
	if err != nil {
		return nil, err
	}
	c := &renderCrawl{mode: mode, web: web}
	var mu sync.Mutex
	if r := e.Renderer(); r != nil {
		r.OnPage = func(p render.PageReport) {
			mu.Lock()
			c.reports = append(c.reports, p)
			mu.Unlock()
		}
	} else if mode != "off" {
		e.Close()
		return nil, fmt.Errorf("no renderer in mode %s", mode)
	}
	start := time.Now()
	if err := e.Start(); err != nil {
		e.Close()
		return nil, err
	}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	limit := time.After(10 * time.Minute)
wait:
	for {
		select {
		case <-e.Done():
			break wait
		case <-limit:
			e.Close()
			return nil, fmt.Errorf("the %s crawl did not end in 10 minutes", mode)
		case <-tick.C:
			if r := e.Renderer(); r != nil {
				c.peakPSS = max(c.peakPSS, r.Pool.Stats().PSSMB)
			}
		}
	}
	c.secs = time.Since(start).Seconds()
	c.pages = e.Stats().PagesFetched
	if r := e.Renderer(); r != nil {
		c.pool = r.Pool.Stats()
		c.hosts = r.Hosts()
		c.peakPSS = max(c.peakPSS, c.pool.PSSMB)
	}
	e.Close()
	c.log = web.Log()
	mu.Lock()
	defer mu.Unlock()
	return c, nil
}
