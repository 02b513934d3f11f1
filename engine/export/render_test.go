package export_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/export"
	"github.com/crawlconsole/crawlconsole/engine/render/rendertest"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
)

// A crawl that renders the SPA sandbox's script-built pages exports, for each, the
// page as the server sent it (request and response), the requests the page's
// script made through the crawler (its app.js and JSON API calls, each a request
// and a response record), and the DOM the browser built, as a conversion record
// referring to the page's response; warcio.js reads every record.
func TestWARCExportOfRenderedPages(t *testing.T) {
	web := rendertest.SPAWeb(t, 2)
	o := config.DefaultOptions()
	o.Seeds = []string{web.URL(sandbox.SPASite)}
	o.DB = filepath.Join(t.TempDir(), "c.db")
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.HostRate = 0
	o.Lanes.Max = 1
	o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, 2*time.Millisecond
	o.Revisit.Enabled = false
	o.Render.Timeout = time.Minute         // a patience for a loaded box, not a property under test
	o.Render.YieldLimit = 20 * time.Second // likewise: a starved renderer is slow to answer, not a script that never yields
	e, err := engine.New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-e.Done():
	case <-time.After(6 * time.Minute):
		t.Fatalf("crawl not done: %+v", e.Stats())
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := store.OpenReadOnly(o.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	dir := t.TempDir()
	rep, err := export.WARC(st, export.WARCOptions{Dir: dir})
	if err != nil || rep.Warnings != 0 {
		t.Fatalf("export: %v, report %+v", err, rep)
	}
	var recs []warcRecord
	for _, f := range rep.Files {
		recs = append(recs, readWARC(t, f)...)
	}
	home := web.URL(sandbox.SPASite)
	article := strings.TrimSuffix(home, "/") + "/a/1"
	byID := map[string]warcRecord{}
	count := map[string]int{} // "type uri"
	for _, r := range recs {
		byID[r.get("WARC-Record-ID")] = r
		count[r.get("WARC-Type")+" "+r.get("WARC-Target-URI")]++
	}
	for _, u := range []string{strings.TrimSuffix(home, "/") + "/app.js", strings.TrimSuffix(home, "/") + "/api/list",
		strings.TrimSuffix(home, "/") + "/api/article/1"} {
		if count["request "+u] != 1 || count["response "+u] != 1 {
			t.Errorf("%s, a request of the rendered pages' script: %d request and %d response records; want 1 and 1",
				u, count["request "+u], count["response "+u])
		}
	}
	for _, page := range []struct{ uri, want string }{{home, `href="/a/1"`}, {article, "Paragraph 1 of story 1"}} {
		var conv []warcRecord
		for _, r := range recs {
			if r.get("WARC-Type") == "conversion" && r.get("WARC-Target-URI") == page.uri {
				conv = append(conv, r)
			}
		}
		if len(conv) != 1 {
			t.Errorf("%s: %d conversion records; want 1 (its rendered DOM)", page.uri, len(conv))
			continue
		}
		c := conv[0]
		ref := byID[c.get("WARC-Refers-To")]
		if ref.get("WARC-Type") != "response" || ref.get("WARC-Target-URI") != page.uri || ref.get("WARC-Date") != c.get("WARC-Date") {
			t.Errorf("%s: the conversion record refers to %q (%s %s at %s); want the page's response of %s",
				page.uri, c.get("WARC-Refers-To"), ref.get("WARC-Type"), ref.get("WARC-Target-URI"), ref.get("WARC-Date"), c.get("WARC-Date"))
		}
		if !strings.HasPrefix(c.get("Content-Type"), "text/html") || !strings.Contains(string(c.block), page.want) {
			t.Errorf("%s: the conversion record (%s) lacks %q, which only the rendered DOM has:\n%.400s", page.uri, c.get("Content-Type"), page.want, c.block)
		}
		if _, _, body := httpPayload(t, ref.block); strings.Contains(string(body), page.want) {
			t.Errorf("%s: the response record holds %q: it should be the shell the server sent", page.uri, page.want)
		}
	}
	if rep.Conversions < 2 {
		t.Errorf("report %+v: want a conversion per rendered page", rep)
	}
	checkWithWarcioJS(t, rep.Files, recs)
}
