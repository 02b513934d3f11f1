package metrics

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Server serves /metrics on one address. Listen binds it (so a bad or busy address
// fails before the crawl starts); Serve starts answering once the engine exists.
type Server struct {
	ln  net.Listener
	srv *http.Server
}

// CheckAddr refuses an address that would open /metrics beyond this machine unless
// public is set: the figures name the crawl's hosts and egresses. An empty host
// (":9100") listens on every interface, so it counts as public too.
func CheckAddr(addr string, public bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--metrics %q: want HOST:PORT, e.g. 127.0.0.1:9464 (%v)", addr, err)
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("--metrics %q: bad port %q", addr, port)
	}
	if public || host == "localhost" {
		return nil
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--metrics %s is not a loopback address: /metrics would be open to the network "+
		"(it names the crawl's hosts and egresses); use 127.0.0.1:PORT, or add --metrics-public to serve it there", addr)
}

// Listen checks addr (CheckAddr) and binds it.
func Listen(addr string, public bool) (*Server, error) {
	if err := CheckAddr(addr, public); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics %s: %w", addr, err)
	}
	return &Server{ln: ln}, nil
}

// Addr is the address bound (with the port chosen when addr asked for port 0).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Serve answers /metrics from src, with the Go runtime and process collectors
// beside it, until Close. Scrape errors go to the scraper only: nothing is written
// to the terminal the console draws on.
func (s *Server) Serve(src Source) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(src),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorHandling: promhttp.ContinueOnError, MaxRequestsInFlight: 4, Timeout: 10 * time.Second}))
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	// Serve returns ErrServerClosed on Close; any other end means scrapes fail, which
	// Prometheus reports as the target down.
	go s.srv.Serve(s.ln)
}

// Close stops serving; a scrape under way gets a second to finish.
func (s *Server) Close() {
	if s.srv == nil {
		s.ln.Close()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	s.srv.Shutdown(ctx)
}
