package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/render/rendertest"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
)

// TestWorkersRenderReachesTheMastersWARC: a worker renders the SPA sandbox's
// script-built pages, and the master's WARC export holds what a one-box crawl's
// does: the requests the pages' script made through the crawler (request and
// response records) and each page's rendered DOM as a conversion record referring
// to the page's response.
func TestWorkersRenderReachesTheMastersWARC(t *testing.T) {
	t.Parallel()
	_, home, st := spaClusterCrawl(t, renderPatiently)
	defer st.Close()
	recs, rep := exportedRecords(t, st)
	root := strings.TrimSuffix(home, "/")
	article := root + "/a/1"
	count := map[string]int{} // "type uri"
	byID := map[string]warcRec{}
	for _, r := range recs {
		count[r.header["WARC-Type"]+" "+r.header["WARC-Target-URI"]]++
		byID[r.header["WARC-Record-ID"]] = r
	}
	for _, u := range []string{root + "/app.js", root + "/api/list", root + "/api/article/1"} {
		if count["request "+u] != 1 || count["response "+u] != 1 {
			t.Errorf("%s, a request of the rendered pages' script: %d request and %d response records in the master's WARC; want 1 and 1",
				u, count["request "+u], count["response "+u])
		}
	}
	for _, page := range []struct{ uri, want string }{{home, `href="/a/1"`}, {article, "Paragraph 1 of story 1"}} {
		var conv []warcRec
		for _, r := range recs {
			if r.header["WARC-Type"] == "conversion" && r.header["WARC-Target-URI"] == page.uri {
				conv = append(conv, r)
			}
		}
		if len(conv) != 1 {
			t.Errorf("%s: %d conversion records in the master's WARC; want 1 (the DOM the worker's browser built)", page.uri, len(conv))
			continue
		}
		ref := byID[conv[0].header["WARC-Refers-To"]]
		if ref.header["WARC-Type"] != "response" || ref.header["WARC-Target-URI"] != page.uri {
			t.Errorf("%s: the conversion record refers to %s %s; want the page's response", page.uri, ref.header["WARC-Type"], ref.header["WARC-Target-URI"])
		}
		if !strings.Contains(string(conv[0].block), page.want) {
			t.Errorf("%s: the conversion record lacks %q, which only the rendered DOM has:\n%.400s", page.uri, page.want, conv[0].block)
		}
	}
	if rep.Conversions < 2 {
		t.Errorf("export report %+v: want a conversion per rendered page", rep)
	}
}

// TestWorkerFollowsTheMastersRenderMode: with render.mode off on the master, its
// worker renders nothing: the SPA's script is never requested and the master's
// WARC has no conversion record.
func TestWorkerFollowsTheMastersRenderMode(t *testing.T) {
	t.Parallel()
	_, _, st := spaClusterCrawl(t, func(r *config.RenderOptions) { r.Mode = "off" })
	defer st.Close()
	recs, rep := exportedRecords(t, st)
	for _, r := range recs {
		if u := r.header["WARC-Target-URI"]; strings.HasSuffix(u, "/app.js") || r.header["WARC-Type"] == "conversion" {
			t.Errorf("%s record of %s: the master said render.mode off, yet its worker rendered", r.header["WARC-Type"], u)
		}
	}
	if rep.Pages == 0 {
		t.Errorf("export report %+v: want the home page stored, fetched plainly", rep)
	}
}

// TestWorkersRenderVerdictsOutliveTheCrawl: what a worker's renders taught (the
// SPA's articles need rendering) is kept in the master's store, and a worker
// joining the restarted crawl starts from it, without learning renders again.
func TestWorkersRenderVerdictsOutliveTheCrawl(t *testing.T) {
	t.Parallel()
	c, home, st := spaClusterCrawl(t, renderPatiently)
	raw, err := st.GetMeta("render_verdicts")
	st.Close()
	if err != nil || !strings.Contains(string(raw), `"127.0.0.1/a":true`) {
		t.Errorf("the master's store keeps render verdicts %s (%v); want the SPA's article section (/a/) as needing rendering", raw, err)
	}
	c.startMaster() // the crawl restarted on its store
	w := c.worker("w2", "127.0.0.3")
	r := w.Engine().Renderer()
	if r == nil {
		t.Fatal("the worker has no renderer")
	}
	if known, dynamic := r.Decider.Verdict("127.0.0.1", strings.TrimSuffix(home, "/")+"/a/1"); !known || !dynamic {
		t.Errorf("a worker joining the restarted crawl: the SPA article section's verdict known=%v dynamic=%v; want it known as needing rendering", known, dynamic)
	}
}

// renderPatiently caps a render at enginetest.Patience: a guard against a render
// that hangs, not a measure of speed. A render is wall-clock by nature (the page's
// script runs in real time), and the tests below need each page rendered: on a
// loaded box a render of the SPA's pages, which take about a second idle, can take
// far longer than the default 10 s cap. Likewise the yield watch's 3 s: a starved
// renderer is slow to answer, not a script that never yields (the watch ended a
// render of the SPA at load 29-44 and the page was kept unrendered).
func renderPatiently(r *config.RenderOptions) {
	r.Timeout = enginetest.Patience
	r.YieldLimit = enginetest.Patience
}

// spaClusterCrawl crawls the SPA sandbox with a master, its render options set by
// render, and one worker (w1) to the crawl's end, and returns the cluster, the
// SPA's home URL and the master's store opened read-only, for the caller to close.
func spaClusterCrawl(t *testing.T, render func(*config.RenderOptions)) (*testCluster, string, *store.Store) {
	t.Helper()
	web := rendertest.SPAWeb(t, 2)
	home := web.URL(sandbox.SPASite)
	c := startClusterWith(t, enginetest.SandboxConfig(5, 2), 300*time.Millisecond, func(o *config.Options, _ *sandbox.Sandbox) {
		quickSiteOptions(o, []string{home})
		render(&o.Render)
	})
	// The package's browser: the worker's sessions are browser contexts of its own.
	c.browser = rendertest.SharedBrowser(t)
	w := c.worker("w1", "127.0.0.2")
	// A failure below says what the worker's renderer did: its per-host figures
	// (renders, failed, unsettled) and its log (a page kept as fetched names why).
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		if r := w.Engine().Renderer(); r == nil {
			t.Logf("worker w1 had no renderer")
		} else {
			t.Logf("worker w1's renderer: pool %v, hosts %+v", r.Pool.Stats(), r.Hosts())
		}
		for _, ev := range w.Engine().EventsSince(0, 500) {
			t.Logf("w1 log: %s %v lane %d %s: %s", ev.At.Format("15:04:05.000"), ev.Level, ev.Lane, ev.Host, ev.Msg)
		}
		for _, ev := range c.master.EventsSince(0, 500) {
			t.Logf("master log: %s %v %s: %s", ev.At.Format("15:04:05.000"), ev.Level, ev.Host, ev.Msg)
		}
	})
	c.waitDone(time.Minute)
	st, err := store.OpenReadOnly(c.opts.DB)
	if err != nil {
		t.Fatal(err)
	}
	return c, home, st
}
