package engine

import (
	"net/url"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/render/rendertest"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

// A social site's search page with render.sites[].scroll: the crawl follows every
// result the page shows over its "load more" steps, not only the first page's.
func TestCrawlScrollsSearchResults(t *testing.T) {
	t.Parallel()
	web := rendertest.SPAWeb(t, 2)
	seed := web.URL(sandbox.SPASite) + "search/more"
	u, _ := url.Parse(seed)
	o := robotsOptions(t, seed)
	// The package's browser: this crawl's sessions are browser contexts of its own.
	o.Render.Shared = rendertest.SharedBrowser(t)
	o.Render.Timeout = time.Minute         // a patience for a loaded box, not a property under test
	o.Render.YieldLimit = 20 * time.Second // likewise: a starved renderer is slow to answer, not a script that never yields
	o.Render.Sites = []config.RenderSite{{Host: u.Hostname(), Scroll: 3}}
	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second)
	e.Close()
	fetched := map[string]int{}
	for _, r := range web.Log() {
		fetched[r.Path]++
	}
	for _, p := range sandbox.SearchTruth() {
		if fetched[p] != 1 {
			t.Errorf("result %s fetched %d times; want 1 (the page shows it after a \"load more\" step)", p, fetched[p])
		}
	}
}
