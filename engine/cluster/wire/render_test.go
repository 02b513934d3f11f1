package wire

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// A rendered page's own requests and the DOM the browser built reach the master
// with the page, for its WARC export; the page's body stays the server's.
func TestResultFrameCarriesARendersCaptures(t *testing.T) {
	t.Parallel()
	at := time.Unix(1700000000, 5) // as decoded: local
	in := Result{Node: "w1", Incarnation: "abc", Task: frontier.Task{URL: "http://a.test/", Host: "a.test", Lease: 7},
		Res: &fetch.Result{URL: "http://a.test/", Status: 200, Body: []byte(`<div id="root"></div>`),
			Exchanges: []fetch.Exchange{{URL: "http://a.test/", Status: 200, StatusLine: "HTTP/1.1 200 OK", RequestHead: "GET / HTTP/1.1\r\n"}},
			Render: &fetch.Rendering{Requests: 2, Took: time.Second, DOM: []byte(`<div id="root"><a href="/a/1">story</a></div>`),
				Sub: []fetch.Exchange{
					{URL: "http://a.test/app.js", Status: 200, StatusLine: "HTTP/1.1 200 OK", RequestHead: "GET /app.js HTTP/1.1\r\n", Body: []byte("fetch('/api')"), At: at},
					{URL: "http://a.test/api", Status: 200, StatusLine: "HTTP/1.1 200 OK", RequestHead: "GET /api HTTP/1.1\r\n", Body: []byte(`["/a/1"]`), At: at, BodyCut: true},
				}}}}
	data, err := EncodeResult(&in)
	if err != nil {
		t.Fatal(err)
	}
	var out Result
	if err := DecodeResult(data, &out); err != nil {
		t.Fatal(err)
	}
	rd := out.Res.Render
	if rd == nil || !bytes.Equal(rd.DOM, in.Res.Render.DOM) || !reflect.DeepEqual(rd.Sub, in.Res.Render.Sub) || rd.Requests != 2 {
		t.Fatalf("the render arrived as %+v; want %+v", rd, in.Res.Render)
	}
	if !bytes.Equal(out.Res.Body, in.Res.Body) || !reflect.DeepEqual(out.Res.Exchanges, in.Res.Exchanges) {
		t.Errorf("the page's own body %q and exchanges %+v changed on the way", out.Res.Body, out.Res.Exchanges)
	}
	// A render that kept the page as fetched has requests but no DOM.
	in.Res.Render.DOM = nil
	data, _ = EncodeResult(&in)
	out = Result{}
	if err := DecodeResult(data, &out); err != nil || out.Res.Render.DOM != nil || len(out.Res.Render.Sub) != 2 || !bytes.Equal(out.Res.Body, in.Res.Body) {
		t.Errorf("a render without a DOM: %v, %+v, body %q", err, out.Res.Render, out.Res.Body)
	}
}

func TestResultFrameRejectsBadRenders(t *testing.T) {
	t.Parallel()
	const task = `"node":"w1","inc":"a","task":{"URL":"http://a/","Host":"a","Lease":1}`
	cases := map[string][]byte{
		"DOM without a render":      frame(`{`+task+`,"res":{"Status":200},"doml":3}`, []byte("abc")),
		"requests without response": frame(`{`+task+`,"kind":"x","rxl":1}`, []byte{0}),
		"DOM past the end":          frame(`{`+task+`,"res":{"Status":200,"render":{"requests":1}},"doml":9}`, []byte("abc")),
		"negative DOM":              frame(`{`+task+`,"res":{"Status":200,"render":{"requests":1}},"doml":-1}`, []byte("abc")),
		"junk requests":             frame(`{`+task+`,"res":{"Status":200,"render":{"requests":1}},"rxl":3}`, []byte{1, 0xff, 0xff}),
		"too many requests":         frame(`{`+task+`,"res":{"Status":200,"render":{"requests":1}},"rxl":2}`, []byte{0xe9, 0x07}),
	}
	for name, data := range cases {
		var r Result
		if err := DecodeResult(data, &r); err == nil || !errors.Is(err, cluster.ErrMalformed) {
			t.Errorf("%s: %v, want an error wrapping ErrMalformed", name, err)
		}
	}
}
