package fetch

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// hangUpServer answers the first request on each connection and reads the second,
// then closes the connection without a response: a server that reset a kept-alive
// connection after reading a request. It records when each request arrived.
type hangUpServer struct {
	ln   net.Listener
	mu   sync.Mutex
	seen []time.Time
	// hangingUp, when set, runs as the server hangs up on a request it read.
	hangingUp func()
}

func newHangUpServer(t *testing.T) *hangUpServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &hangUpServer{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s
}

func (s *hangUpServer) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	for n := 0; ; n++ {
		req, err := http.ReadRequest(r)
		if err != nil {
			return
		}
		s.mu.Lock()
		s.seen = append(s.seen, time.Now())
		first := len(s.seen) == 1
		s.mu.Unlock()
		if n == 1 && !first {
			if s.hangingUp != nil {
				s.hangingUp()
			}
			return // read it, then hang up: the client sees its reused connection fail
		}
		body := "<html><body>ok</body></html>"
		resp := &http.Response{StatusCode: 200, ProtoMajor: 1, ProtoMinor: 1, Request: req,
			Header: http.Header{"Content-Type": {"text/html"}}, ContentLength: int64(len(body)),
			Body: http.NoBody}
		resp.Body = nopBody(body)
		if err := resp.Write(c); err != nil {
			return
		}
	}
}

func (s *hangUpServer) times() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.seen...)
}

// TestReplayAfterHangUpWaitsThePause: when a kept-alive connection fails after the
// server read the request, net/http sends the request again on a new connection by
// itself. To the site that is a second request right behind the first, the too-short
// gap bot rules count; the fetcher makes the replay wait the same pause as a
// same-host redirect hop.
func TestReplayAfterHangUpWaitsThePause(t *testing.T) {
	const pause = 300 * time.Millisecond
	srv := newHangUpServer(t)
	cfg := Config{UserAgent: "crawlconsole-test", ConnectTimeout: 2 * time.Second, RequestTimeout: 5 * time.Second,
		MaxBodyBytes: 1 << 20, MaxRedirects: 3, ContentTypes: []string{"text/html"},
		RedirectPause: func() time.Duration { return pause }}
	f, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, cfg)
	base := "http://" + srv.ln.Addr().String()
	if _, err := f.Fetch(base+"/a", nil); err != nil { // opens the connection
		t.Fatal(err)
	}
	res, err := f.Fetch(base+"/b", nil) // on the kept-alive connection: hung up, replayed
	if err != nil || res.Status != 200 {
		t.Fatalf("second fetch: %v %+v", err, res)
	}
	seen := srv.times()
	if len(seen) != 3 {
		t.Fatalf("server saw %d requests, want 3 (a, b hung up, b again)", len(seen))
	}
	if gap := seen[2].Sub(seen[1]); gap < pause {
		t.Fatalf("the replay came %v after the request the server read, want at least the %v pause", gap, pause)
	}
	// The archived request is the one the page came from, written once.
	if len(res.Exchanges) != 1 || !strings.HasPrefix(res.Exchanges[0].RequestHead, "GET /b HTTP/1.1\r\n") ||
		strings.Count(res.Exchanges[0].RequestHead, "\r\nUser-Agent: ") != 1 {
		t.Fatalf("exchanges of the replayed fetch: %+v", res.Exchanges)
	}
}

type stringBody struct{ *strings.Reader }

func (stringBody) Close() error { return nil }

func nopBody(s string) stringBody { return stringBody{strings.NewReader(s)} }
