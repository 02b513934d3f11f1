package render

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/sandbox"
)

// sandboxJob is a render of the SPA sandbox's page u, fetched plainly first, its
// requests sent with a plain client.
func sandboxJob(t *testing.T, u string) Job {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	pu, _ := url.Parse(u)
	return Job{Egress: "direct", Site: pu.Hostname(), URL: u, Status: resp.StatusCode, Header: resp.Header, Body: body,
		Fetch: func(ctx context.Context, req *http.Request) (*Response, error) {
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return nil, err
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}, err
		}}
}

// A social site's search results come a page at a time: by a "Load more" button,
// or on scrolling to the bottom of a virtual list that keeps only the newest page.
// A render with scroll steps reads every result (also those the virtual list
// dropped), stops when a step shows nothing new, and one without steps reads the
// first page only.
func TestRenderScrollStepsLoadMoreResults(t *testing.T) {
	t.Parallel() // its own server; the shared browser
	p := sharedPool(t)
	web, err := sandbox.StartSPA([]string{"127.0.0.1", "127.0.0.1", "127.0.0.1", "127.0.0.1", "127.0.0.1"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(web.Close)
	truth := sandbox.SearchTruth()
	for _, path := range []string{"search/more", "search/scroll"} {
		u := web.URL(sandbox.SPASite) + path
		j := sandboxJob(t, u)
		out, err := p.Render(t.Context(), j)
		if err != nil {
			t.Fatal(err)
		}
		if n := countLinks(out.DOM, truth); n != sandbox.SearchPageSize {
			t.Errorf("%s without steps: %d results read; want the first page's %d", path, n, sandbox.SearchPageSize)
		}
		j.Scroll = sandbox.SearchPages + 2 // more than the results have
		out, err = p.Render(t.Context(), j)
		if err != nil {
			t.Fatal(err)
		}
		if n := countLinks(out.DOM, truth); n != len(truth) {
			t.Errorf("%s with %d steps: %d of %d results read (%d steps taken, note %q)", path, j.Scroll, n, len(truth), out.Steps, out.Note)
		}
		if out.Steps != sandbox.SearchPages {
			t.Errorf("%s: %d steps taken; want %d (%d that loaded a page, then one that showed nothing new)", path, out.Steps, sandbox.SearchPages, sandbox.SearchPages-1)
		}
		if out.Note != "" {
			t.Errorf("%s: note %q; want a clean render", path, out.Note)
		}
	}
}

// countLinks counts the paths of want linked from dom.
func countLinks(dom []byte, want []string) int {
	n := 0
	for _, w := range want {
		if strings.Contains(string(dom), `href="`+w+`"`) || strings.Contains(string(dom), w+`"`) {
			n++
		}
	}
	return n
}
