package wire

import (
	"reflect"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// A failed fetch's answered redirects (Outcome.Hops) travel in the frame's binary
// part with no response, and come out of the frame as they went in.
func TestResultFrameCarriesAFailedFetchsHops(t *testing.T) {
	t.Parallel()
	hops := []fetch.Exchange{
		{URL: "http://a.test/a", Status: 302, StatusLine: "HTTP/1.1 302 Found", RequestHead: "GET /a HTTP/1.1\r\n",
			ResponseHead: "Location: /b\r\n", RemoteIP: "192.0.2.1", Body: []byte("to b")},
		{URL: "http://a.test/b", Status: 302, StatusLine: "HTTP/1.1 302 Found", RequestHead: "GET /b HTTP/1.1\r\n",
			ResponseHead: "Location: /a\r\n", RemoteIP: "192.0.2.1", BodyCut: true},
		{URL: "http://a.test/c", Status: 200, StatusLine: "HTTP/1.1 200 OK", RequestHead: "GET /c HTTP/1.1\r\n",
			ResponseHead: "Content-Length: 99\r\n", Body: []byte("part"), BodyCut: true, Failed: fetch.TruncatedDisconnect},
		{URL: "http://a.test/d", Status: 200, StatusLine: "HTTP/1.1 200 OK", BodyCut: true, Failed: fetch.TruncatedTime},
		{URL: "http://a.test/e", Status: 200, StatusLine: "HTTP/1.1 200 OK", BodyCut: true, Failed: fetch.TruncatedUnspecified},
	}
	in := Result{Node: "w1", Incarnation: "abc", Task: frontier.Task{URL: "http://a.test/a", Host: "a.test", Lease: 7},
		Kind: fetch.KindRedirectLoop, Hops: hops}
	data, err := EncodeResult(&in)
	if err != nil {
		t.Fatal(err)
	}
	var out Result
	if err := DecodeResult(data, &out); err != nil {
		t.Fatal(err)
	}
	if out.Res != nil || out.Kind != fetch.KindRedirectLoop || !reflect.DeepEqual(out.Hops, hops) {
		t.Errorf("round trip: res %v, kind %q, hops %+v; want no response, %q and %+v", out.Res, out.Kind, out.Hops, fetch.KindRedirectLoop, hops)
	}
}
