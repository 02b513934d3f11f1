package sandbox

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

func TestFaultSharesMatchTheConfiguration(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Hosts = 400
	shares := map[string]float64{}
	for i, k := range FaultKinds() {
		shares[k] = 0.005 * float64(i+1) // 0.5% … 5%: distinct, so a mix-up shows
	}
	cfg.Faults.Shares = shares
	w := NewWeb(cfg)
	counts := map[string]float64{}
	leaves := 0.0
	for _, p := range w.Pages() {
		if p.Kind == KindArticle || p.Kind == KindPost {
			leaves++
			counts[p.Fault]++
		} else if p.Fault != "" {
			t.Fatalf("%s (%s) has fault %s; only articles and posts may", p.URL, p.Kind, p.Fault)
		}
	}
	for _, k := range FaultKinds() {
		t.Run(k, func(t *testing.T) {
			p := shares[k]
			if z := (counts[k] - leaves*p) / math.Sqrt(leaves*p*(1-p)); math.Abs(z) > zTol {
				t.Errorf("%v of %v leaves, want share %v (z=%.1f)", counts[k], leaves, p, z)
			}
		})
	}
	none := NewWeb(sbTestConfig())
	for _, p := range none.Pages() {
		if p.Fault != "" {
			t.Fatalf("fault share 0 but %s has fault %s", p.URL, p.Fault)
		}
	}
}

// sbFaultPage returns a leaf URL carrying fault kind.
func sbFaultPage(t *testing.T, w *Web, kind string) string {
	t.Helper()
	for _, p := range w.Pages() {
		if p.Fault == kind {
			return p.URL
		}
	}
	t.Fatalf("no page with fault %s", kind)
	return ""
}

func TestFaultsBehaveOverHTTP(t *testing.T) {
	t.Parallel() // its own sandbox; it waits out slow and trickled answers, asserting only their least time
	const (
		slow     = 400 * time.Millisecond
		interval = 20 * time.Millisecond
		huge     = 8 << 20
	)
	sb := sbStart(t, func(c *Config) {
		c.SetFaultShare(1) // every article has some fault
		c.Faults.SlowFirstByte = slow
		c.Faults.TrickleChunk, c.Faults.TrickleInterval = 512, interval
		c.Faults.HugeBytes = huge
		c.AntiBot.Enabled = false
	})
	w := sb.Web()
	c := sbClient(sb, "")
	for _, tc := range []struct {
		kind  string
		check func(t *testing.T, url string)
	}{
		{FaultSlow, func(t *testing.T, url string) {
			start := time.Now()
			r := sbGet(t, c, url)
			if el := time.Since(start); el < slow || r.status != 200 {
				t.Errorf("status %d after %v, want 200 after ≥ %v", r.status, el, slow)
			}
		}},
		{FaultTrickle, func(t *testing.T, url string) {
			start := time.Now()
			r := sbGet(t, c, url)
			chunks := (len(r.body) + 511) / 512
			if el := time.Since(start); el < time.Duration(chunks-1)*interval || chunks < 3 {
				t.Errorf("%d bytes in %v, want ≥ %v", len(r.body), el, time.Duration(chunks-1)*interval)
			}
			if !strings.HasSuffix(string(r.body), "</html>\n") {
				t.Error("trickled body is incomplete")
			}
		}},
		{Fault5xx, func(t *testing.T, url string) {
			if r := sbGet(t, c, url); r.status < 500 || r.status > 599 {
				t.Errorf("status %d", r.status)
			}
		}},
		{FaultReset, func(t *testing.T, url string) {
			fresh := sbClient(sb, "") // a new connection: no transparent retry
			_, err := fresh.Get(url)
			if err == nil || !errors.Is(err, syscall.ECONNRESET) {
				t.Errorf("error %v, want connection reset", err)
			}
		}},
		{FaultRedirectChain, func(t *testing.T, url string) {
			hops := 0
			for u := url; ; hops++ {
				r := sbGet(t, c, u)
				if r.status == 200 {
					break
				}
				if r.status != http.StatusFound || hops > 10 {
					t.Fatalf("hop %d: status %d", hops, r.status)
				}
				u = r.header.Get("Location")
			}
			if hops != sb.Config().Faults.RedirectHops {
				t.Errorf("%d redirects, want %d", hops, sb.Config().Faults.RedirectHops)
			}
		}},
		{FaultRedirectLoop, func(t *testing.T, url string) {
			seen := map[string]bool{}
			u := url
			for i := 0; i < 10 && !seen[u]; i++ {
				seen[u] = true
				r := sbGet(t, c, u)
				if r.status != http.StatusFound {
					t.Fatalf("status %d at %s", r.status, u)
				}
				u = r.header.Get("Location")
			}
			if !seen[u] || u != url {
				t.Errorf("redirects did not come back to %s", url)
			}
		}},
		{FaultHuge, func(t *testing.T, url string) {
			resp, err := c.Get(url)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			n, err := io.Copy(io.Discard, resp.Body)
			if err != nil || n != huge || resp.ContentLength != -1 {
				t.Errorf("%d bytes (%v), Content-Length %d; want %d streamed without length", n, err, resp.ContentLength, huge)
			}
		}},
		{FaultBinary, func(t *testing.T, url string) {
			r := sbGet(t, c, url)
			if !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") || utf8.Valid(r.body) || bytes.Count(r.body, []byte{0}) < 10 {
				t.Errorf("Content-Type %q, %d bytes: want binary labelled text/html", r.header.Get("Content-Type"), len(r.body))
			}
		}},
		{FaultMalformed, func(t *testing.T, url string) {
			body := string(sbGet(t, c, url).body)
			if strings.Count(body, "<p>") == strings.Count(body, "</p>") || strings.Contains(body, "</html>") || !strings.Contains(body, "href=") {
				t.Errorf("body is not broken HTML with links:\n%s", body)
			}
		}},
		{FaultBadUTF8, func(t *testing.T, url string) {
			r := sbGet(t, c, url)
			if utf8.Valid(r.body) || !strings.Contains(r.header.Get("Content-Type"), "utf-8") {
				t.Errorf("valid UTF-8 or no charset: %q", r.header.Get("Content-Type"))
			}
		}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			url := sbFaultPage(t, w, tc.kind)
			tc.check(t, url)
			var rec *Request
			for _, r := range sb.Truth().Requests() {
				if r.URL == url {
					rec = &r
				}
			}
			if rec == nil || rec.Fault != tc.kind {
				t.Errorf("truth: %+v, want fault %s recorded", rec, tc.kind)
			}
		})
	}
}

// A slow response whose client leaves ends its handler; Close cuts one whose client
// still waits rather than wait for its first byte (an hour away), and closes the port.
func TestSlowClientsDoNotHoldTheSandbox(t *testing.T) {
	t.Parallel() // its own sandbox; it waits on its clients' deadlines and the sandbox's Close
	sb := sbStart(t, func(c *Config) {
		c.Faults.Shares = map[string]float64{FaultSlow: 1}
		c.Faults.SlowFirstByte = time.Hour
	})
	url := sbFaultPage(t, sb.Web(), FaultSlow)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if _, err := sbClient(sb, "").Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v, want the client's deadline", err)
	}
	sbWait(t, 10*time.Second, "the handler to give up", func() bool { return sb.Truth().InFlight() == 0 })

	// A client with no timeout of its own: only Close can end its wait (or the
	// test, leaving, so that a Close that waits for the handler returns).
	patient := sbClient(sb, "")
	patient.Timeout = 0
	pctx, leave := context.WithCancel(context.Background())
	defer leave()
	preq, _ := http.NewRequestWithContext(pctx, http.MethodGet, url, nil)
	cut := make(chan error, 1)
	go func() {
		resp, err := patient.Do(preq)
		if err == nil {
			resp.Body.Close()
		}
		cut <- err
	}()
	sbWait(t, 0, "the patient client's request to reach its handler", func() bool { return sb.Truth().InFlight() == 1 })
	closed := make(chan struct{})
	go func() {
		sb.Close()
		close(closed)
	}()
	// Close itself gives a response in flight a second: the patience is a guard
	// against a Close that waits for the hour, not a measure of Close.
	select {
	case <-closed:
	case <-time.After(sbPatience):
		leave()
		<-closed
		t.Fatalf("Close still waits after %v for a response whose first byte is an hour away", sbPatience)
	}
	if err := <-cut; err == nil {
		t.Error("the patient client got an answer; want its response cut by Close")
	}
	sbWait(t, 0, "the cut response's handler to end", func() bool { return sb.Truth().InFlight() == 0 })
	if _, err := net.DialTimeout("tcp", sb.HTTPAddr(), time.Second); err == nil {
		t.Error("HTTP port still open after Close")
	}
}
