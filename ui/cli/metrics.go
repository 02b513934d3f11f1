package cli

import (
	"flag"
	"fmt"
	"io"

	"github.com/crawlconsole/crawlconsole/engine/metrics"
)

// metricsFlags are --metrics ADDR and --metrics-public, on every command that runs a
// node of a crawl (crawl, demo, serve, master, worker).
type metricsFlags struct {
	addr   string
	public bool
}

func (m *metricsFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&m.addr, "metrics", "", "serve Prometheus metrics on http://`ADDR`/metrics (loopback, e.g. 127.0.0.1:9464)")
	fs.BoolVar(&m.public, "metrics-public", false, "allow a --metrics address other than loopback (a scraper on another box)")
}

// check refuses a non-loopback --metrics without --metrics-public, before anything starts.
func (m metricsFlags) check() error {
	if m.addr == "" {
		return nil
	}
	return metrics.CheckAddr(m.addr, m.public)
}

// listen binds --metrics (nil without it), so a busy or bad address fails before
// anything starts; serveOn then answers scrapes from the engine once it exists.
func (m metricsFlags) listen() (*metrics.Server, error) {
	if m.addr == "" {
		return nil, nil
	}
	srv, err := metrics.Listen(m.addr, m.public)
	if err != nil {
		return nil, fmt.Errorf("%w%s", err, inUseAdvice(err, "--metrics"))
	}
	return srv, nil
}

// serveOn serves src's figures on srv (bound by listen) until the returned stop is
// called; with no srv it does nothing. The address goes to stderr, once, before any
// console draws.
func serveOn(srv *metrics.Server, src metrics.Source, stderr io.Writer) (stop func()) {
	if srv == nil {
		return func() {}
	}
	srv.Serve(src)
	fmt.Fprintf(stderr, "crawlconsole: metrics on http://%s/metrics\n", srv.Addr())
	return srv.Close
}
