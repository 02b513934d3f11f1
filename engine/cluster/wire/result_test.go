package wire

import (
	"bytes"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/robots"
)

func TestResultFrameRoundTrip(t *testing.T) {
	t.Parallel()
	body := []byte("<html>\\x00\\xff binary-safe 验证 body</html>")
	in := Result{Node: "w1", Incarnation: "abc", Task: frontier.Task{URL: "http://a.test/", Host: "a.test", Lease: 7},
		Lane: 3, Egress: "e1", At: time.Unix(1700000000, 0).UTC(),
		Res: &fetch.Result{URL: "http://a.test/", Status: 200, Header: http.Header{"Etag": {`"x"`}}, Body: body,
			Links: []string{"/b", "/c"}, NofollowLinks: []string{"/d"}, Robots: robots.Directives{NoIndex: true}, Duration: time.Second,
			// The exchanges travel with the result: the master stores them for the
			// WARC export (store.Capture).
			Exchanges: []fetch.Exchange{
				{URL: "http://a.test/old", Status: 302, StatusLine: "HTTP/1.1 302 Found", RequestHead: "GET /old HTTP/1.1\r\n",
					ResponseHead: "Location: /\r\n", RemoteIP: "192.0.2.1", Body: []byte("Moved.")},
				{URL: "http://a.test/", Status: 200, StatusLine: "HTTP/1.1 200 OK", RequestHead: "GET / HTTP/1.1\r\n",
					ResponseHead: "Content-Encoding: gzip\r\n", RemoteIP: "192.0.2.1", Decoded: "gzip"}}}}
	data, err := EncodeResult(&in)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("PGh0bWw")) { // base64 of "<html"
		t.Error("the body went into the frame as base64")
	}
	if bytes.Contains(data, []byte(`\r\n`)) {
		t.Error("the exchanges' heads went into the frame's JSON")
	}
	var out Result
	if err := DecodeResult(data, &out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Res.Body, body) || out.Res.Status != 200 || out.Task.Lease != 7 || len(out.Res.Links) != 2 ||
		out.Res.Header.Get("ETag") != `"x"` || !out.At.Equal(in.At) ||
		len(out.Res.NofollowLinks) != 1 || !out.Res.Robots.NoIndex || // page directives reach the master's record
		!reflect.DeepEqual(out.Res.Exchanges, in.Res.Exchanges) {
		t.Errorf("round trip changed the result: %+v / %+v", out, out.Res)
	}
	// An error result has no response and no body.
	errRes := Result{Node: "w1", Incarnation: "abc", Task: in.Task, Kind: "timeout"}
	data, _ = EncodeResult(&errRes)
	out = Result{}
	if err := DecodeResult(data, &out); err != nil || out.Res != nil || out.Kind != "timeout" {
		t.Errorf("error result: %+v, %v", out, err)
	}
}

func TestResultFrameRejectsBadInput(t *testing.T) {
	t.Parallel()
	good, _ := EncodeResult(&Result{Node: "w1", Incarnation: "abc",
		Task: frontier.Task{URL: "http://a.test/", Host: "a.test", Lease: 1}, Kind: "timeout"})
	noRes, _ := EncodeResult(&Result{Node: "w1", Incarnation: "abc",
		Task: frontier.Task{URL: "http://a.test/", Host: "a.test", Lease: 1}, Kind: "timeout"})
	cases := map[string][]byte{
		"empty":                  nil,
		"short":                  {0, 0},
		"header past the end":    {0xff, 0xff, 0xff, 0xff, '{', '}'},
		"truncated header":       good[:len(good)-3],
		"not JSON":               append([]byte{0, 0, 0, 3}, "abc"...),
		"no lease":               frame(`{"node":"w1","inc":"a","task":{"URL":"http://a/","Host":"a"},"kind":"x"}`, nil),
		"bad node":               frame(`{"node":"a b","inc":"a","task":{"URL":"http://a/","Host":"a","Lease":1},"kind":"x"}`, nil),
		"body without res":       append(append([]byte(nil), noRes...), "stray body"...),
		"exchanges past the end": frame(`{"node":"w1","inc":"a","task":{"URL":"http://a/","Host":"a","Lease":1},"res":{"Status":200},"xl":99}`, []byte{1}),
		"exchanges without res":  frame(`{"node":"w1","inc":"a","task":{"URL":"http://a/","Host":"a","Lease":1},"kind":"x","xl":1}`, []byte{0}),
		"junk exchanges":         frame(`{"node":"w1","inc":"a","task":{"URL":"http://a/","Host":"a","Lease":1},"res":{"Status":200},"xl":3}`, []byte{1, 0xff, 0xff}),
		"too many exchanges":     frame(`{"node":"w1","inc":"a","task":{"URL":"http://a/","Host":"a","Lease":1},"res":{"Status":200},"xl":2}`, []byte{0xc8, 0x01}),
	}
	// A frame whose exchanges are cut short anywhere is refused, never read past.
	withEx, _ := EncodeResult(&Result{Node: "w1", Incarnation: "abc", Task: frontier.Task{URL: "http://a.test/", Host: "a.test", Lease: 1},
		Res: &fetch.Result{Status: 200, Exchanges: []fetch.Exchange{{URL: "http://a.test/", RequestHead: "GET / HTTP/1.1\r\n", Status: 200}}}})
	for cut := 1; cut < 20; cut++ {
		var r Result
		n := int(withEx[0])<<24 | int(withEx[1])<<16 | int(withEx[2])<<8 | int(withEx[3])
		if err := DecodeResult(withEx[:4+n+cut], &r); err == nil {
			t.Errorf("exchanges cut to %d bytes were accepted", cut)
		}
	}
	for name, d := range map[string]time.Duration{"negative fetch time": -time.Second, "absurd fetch time": 48 * time.Hour} {
		// The fetch time feeds seed 003's cost table.
		data, _ := EncodeResult(&Result{Node: "w1", Incarnation: "abc",
			Task: frontier.Task{URL: "http://a.test/", Host: "a.test", Lease: 1}, Res: &fetch.Result{Status: 200, Duration: d}})
		cases[name] = data
	}
	for name, data := range cases {
		var r Result
		err := DecodeResult(data, &r)
		if err == nil || !errors.Is(err, cluster.ErrMalformed) {
			t.Errorf("%s: %v, want an error wrapping ErrMalformed", name, err)
		}
	}
}

func frame(js string, body []byte) []byte {
	out := []byte{0, 0, 0, byte(len(js))}
	return append(append(out, js...), body...)
}

// A body of a megabyte or more travels compressed and comes back byte for byte;
// a frame whose compressed body does not read as the length it claims is refused
// as malformed.
func TestLargeBodyTravelsCompressed(t *testing.T) {
	t.Parallel()
	body := bytes.Repeat([]byte("<url><loc>http://a.test/p/1</loc></url>\n"), 3<<20/40)
	in := Result{Node: "w1", Incarnation: "abc", Task: frontier.Task{URL: "http://a.test/s.xml", Host: "a.test", Lease: 7},
		At: time.Unix(1700000000, 0).UTC(), Res: &fetch.Result{URL: "http://a.test/s.xml", Status: 200, Body: body}}
	data, err := EncodeResult(&in)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) >= len(body)/4 {
		t.Errorf("a %d-byte sitemap took %d bytes on the wire", len(body), len(data))
	}
	var out Result
	if err := DecodeResult(data, &out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Res.Body, body) {
		t.Fatalf("the body came back as %d bytes, want the %d sent", len(out.Res.Body), len(body))
	}
	bad := slices.Clone(data)
	bad[len(bad)-8] ^= 0xff
	if err := DecodeResult(bad, &Result{}); !errors.Is(err, cluster.ErrMalformed) {
		t.Errorf("a damaged compressed body: %v, want malformed", err)
	}
}
