package sandbox

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// sbTestConfig is a quiet, fast configuration: no faults, no dead names, instant DNS.
func sbTestConfig() Config {
	cfg := DefaultConfig()
	cfg.Seed = 7
	cfg.Hosts = 30
	cfg.SetFaultShare(0)
	cfg.DNS.LatencyMin, cfg.DNS.LatencyMax = 0, time.Millisecond
	return cfg
}

// sbStart starts a sandbox with sbTestConfig adjusted by mutate, closed at test end.
func sbStart(t *testing.T, mutate func(*Config)) *Sandbox {
	t.Helper()
	cfg := sbTestConfig()
	if mutate != nil {
		mutate(&cfg)
	}
	sb, err := Start(cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

// sbClient is an HTTP client that reaches every sandbox name at the sandbox's HTTP
// address (like curl --resolve), from source address localIP ("" for the default), and
// does not follow redirects.
func sbClient(sb *Sandbox, localIP string) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second}
	if localIP != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(localIP)}
	}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return d.DialContext(ctx, "tcp", sb.HTTPAddr())
		},
		MaxIdleConnsPerHost: 16,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       60 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// sbResponse is a fetched response with its body read.
type sbResponse struct {
	status int
	header http.Header
	body   []byte
}

// sbGet fetches url with optional header pairs and fails the test on transport errors.
func sbGet(t *testing.T, c *http.Client, url string, header ...string) sbResponse {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading body: %v", url, err)
	}
	return sbResponse{status: resp.StatusCode, header: resp.Header, body: body}
}

// sbPatience is the least sbWait waits: a guard must never be what decides a test,
// and a loaded two-core box running the whole suite takes many times what an idle
// one does.
const sbPatience = 90 * time.Second

// sbWait polls cond until it holds, failing the test after d or sbPatience,
// whichever is longer (d: what the wait takes on an idle box, or a clock time it
// waits for).
func sbWait(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	d = max(d, sbPatience)
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// sbPages filters the model's pages.
func sbPages(w *Web, keep func(PageInfo) bool) []PageInfo {
	var out []PageInfo
	for _, p := range w.Pages() {
		if keep(p) {
			out = append(out, p)
		}
	}
	return out
}
