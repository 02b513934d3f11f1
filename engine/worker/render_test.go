package worker

import (
	"bytes"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
)

// A render's captures over a report's cap lose the DOM first, then the bodies of
// the page's last requests; the lane's rendering is not touched.
func TestFitRenderDropsTheDOMFirst(t *testing.T) {
	t.Parallel()
	sub := func(n int) fetch.Exchange {
		return fetch.Exchange{URL: "http://a.test/x", RequestHead: "GET /x HTTP/1.1\r\n", Body: bytes.Repeat([]byte("j"), n)}
	}
	rd := &fetch.Rendering{DOM: bytes.Repeat([]byte("d"), 600), Sub: []fetch.Exchange{sub(300), sub(300)}}
	r := wire.Result{Res: &fetch.Result{Render: rd}}
	if cut := FitRender(&r, 2000); cut != "" || r.Res.Render != rd {
		t.Fatalf("within the cap: cut %q; want nothing cut", cut)
	}
	cut := FitRender(&r, 1000)
	got := r.Res.Render
	if got.DOM != nil || len(got.Sub) != 2 || len(got.Sub[0].Body) != 300 || len(got.Sub[1].Body) != 300 || !strings.Contains(cut, "DOM") {
		t.Errorf("over the cap by the DOM: cut %q, DOM %d bytes, bodies %d and %d; want the DOM dropped and the requests whole",
			cut, len(got.DOM), len(got.Sub[0].Body), len(got.Sub[1].Body))
	}
	r = wire.Result{Res: &fetch.Result{Render: rd}}
	cut = FitRender(&r, 400)
	got = r.Res.Render
	if got.DOM != nil || len(got.Sub) != 2 || len(got.Sub[0].Body) != 300 || got.Sub[1].Body != nil || !got.Sub[1].BodyCut ||
		!strings.Contains(cut, "bodies of 1") {
		t.Errorf("over the cap by the requests too: cut %q, %+v; want the DOM and the last request's body dropped, that body marked cut", cut, got)
	}
	if len(rd.DOM) != 600 || len(rd.Sub[1].Body) != 300 || rd.Sub[1].BodyCut {
		t.Errorf("the lane's rendering changed: %+v", rd)
	}
}
