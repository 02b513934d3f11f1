package main

// The live discovery bench's fetch cap: a forwarding HTTP proxy on loopback that
// every request of a crawl goes through (the engine's egress, engine/egress), and
// that lets one request start per slot, first come first served. One lane with a
// fixed pause is not a cap on its own: a lane that runs dry retires without pausing
// and the next task opens a new lane at once, so a crawl that polls often (its
// queue dry between polls) fetched up to 1.7x the budget. The proxy holds a request
// until its slot; a slot nobody asks for is lost (no burst credit).

import (
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// discPace is the pacing proxy.
type discPace struct {
	gap  time.Duration
	tr   *http.Transport
	srv  *http.Server
	ln   net.Listener
	mu   sync.Mutex
	next time.Time
}

// startDiscPace serves the proxy on a loopback port, forwarding to the sandbox
// whose DNS server is dnsAddr.
func startDiscPace(gap time.Duration, dnsAddr string) (*discPace, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &discPace{gap: gap, tr: crawlTransport(dnsAddr, netip.Addr{}), ln: ln}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	go p.srv.Serve(ln) //nolint:errcheck // ends with Close
	return p, nil
}

// Spec is the egress spec that sends a crawl through the proxy.
func (p *discPace) Spec() string { return "http://" + p.ln.Addr().String() }

// Close stops the proxy.
func (p *discPace) Close() {
	p.srv.Close()
	p.tr.CloseIdleConnections()
}

func (p *discPace) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect || r.URL.Host == "" {
		http.Error(w, "forwarding proxy: absolute http URLs only", http.StatusMethodNotAllowed)
		return
	}
	p.mu.Lock()
	at := time.Now()
	if p.next.After(at) {
		at = p.next
	}
	p.next = at.Add(p.gap)
	p.mu.Unlock()
	t := time.NewTimer(time.Until(at))
	select {
	case <-t.C:
	case <-r.Context().Done():
		t.Stop()
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.Header.Del("Proxy-Connection")
	out.Header.Del("Proxy-Authorization")
	resp, err := p.tr.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body) //nolint:errcheck // the client may be gone
}
