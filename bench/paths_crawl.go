package main

// The crawls "bench paths -cover" traces: a crawl of a few sandbox pages, run by a
// copy of this command built with coverage (paths_cover.go), so that the functions
// one real task ran can be told from those a static walk merely reaches.
//
//	bench paths-crawl -role local -pages N         a one-box crawl of N pages
//	bench paths-crawl -role master -pages N -worker CMD [-worker-covdir DIR]
//	                                               a master over N pages, its worker
//	                                               in a child process (CMD, its
//	                                               coverage counters in DIR)
//	bench paths-crawl -role worker -nats URL -token T
//	                                               a worker until its stdin closes
//
// The web is a chain of N pages on one host (pathsWeb), fetched by one lane one
// after the other: every page's task fetches, parses and records a page with links
// (one new, one seen, one off-site) like any other.

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/embedded"
	"github.com/crawlconsole/crawlconsole/engine/config"
)

func init() { register("paths-crawl", runPathsCrawl) }

// pathsCrawlPatience bounds one traced crawl: a few pages take a second or two on
// an idle box; the bound only keeps a broken crawl from hanging the bench.
const pathsCrawlPatience = 3 * time.Minute

func runPathsCrawl(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("paths-crawl", flag.ContinueOnError)
	role := fs.String("role", "local", "local, master or worker")
	pages := fs.Int("pages", 2, "pages to crawl (the site's budget)")
	workerCmd := fs.String("worker", "", "master: the command line of the worker's process (space-separated), given -nats and -token")
	natsURL := fs.String("nats", "", "worker: the master's NATS server")
	token := fs.String("token", "", "worker: the NATS server's token")
	workerCov := fs.String("worker-covdir", "", "master: the worker process's GOCOVERDIR (its counters apart from the master's)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	switch *role {
	case "worker":
		return nil, pathsWorker(*natsURL, *token)
	case "local", "master":
	default:
		return nil, fmt.Errorf("-role %q: want local, master or worker", *role)
	}
	if *pages < 1 {
		return nil, fmt.Errorf("-pages %d: want at least 1", *pages)
	}
	web := pathsWeb(*pages)
	defer web.Close()
	dir, err := os.MkdirTemp("", "bench-paths-crawl-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	o := config.DefaultOptions()
	o.Seeds = []string{web.URL + "/p/0"}
	o.DB = filepath.Join(dir, "crawl.db")
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Scope.SameSite = true
	o.Lanes.Max = 1
	o.Lanes.DelayMin, o.Lanes.DelayMax = 0, 0
	o.HostRate = 0
	o.Revisit.Enabled = false

	var e *engine.Engine
	var stop func() error
	if *role == "local" {
		if e, err = engine.New(o); err != nil {
			return nil, err
		}
		if err := e.Start(); err != nil {
			e.Close()
			return nil, err
		}
		stop = e.Close
	} else {
		e, stop, err = pathsMaster(o, strings.Fields(*workerCmd), *workerCov)
		if err != nil {
			return nil, err
		}
	}
	select {
	case <-e.Done():
	case <-time.After(pathsCrawlPatience):
		stop()
		return nil, fmt.Errorf("crawl of %d pages not done after %v: %+v", *pages, pathsCrawlPatience, e.Stats())
	}
	stored := e.Stats().PagesStored
	if err := stop(); err != nil {
		return nil, err
	}
	got := int(web.pages.Load())
	if got != *pages {
		return nil, fmt.Errorf("the crawl fetched %d pages (stored %d), want %d: the traced path would not be the one asked for", got, stored, *pages)
	}
	return map[string]any{"role": *role, "pages": got, "stored": stored}, nil
}

// pathsMaster starts a NATS server and a master over o, and one worker in a child
// process; stop closes the worker (its stdin), waits for it, then the rest.
func pathsMaster(o config.Options, workerCmd []string, workerCov string) (*engine.Engine, func() error, error) {
	if len(workerCmd) == 0 {
		return nil, nil, fmt.Errorf("-role master needs -worker: the command that runs the worker")
	}
	dir, err := os.MkdirTemp("", "bench-paths-nats-")
	if err != nil {
		return nil, nil, err
	}
	var raw [16]byte
	rand.Read(raw[:])
	token := hex.EncodeToString(raw[:])
	var closers []func() error
	stop := func() error {
		var first error
		for i := len(closers) - 1; i >= 0; i-- {
			if err := closers[i](); err != nil && first == nil {
				first = err
			}
		}
		os.RemoveAll(dir)
		return first
	}
	fail := func(err error) (*engine.Engine, func() error, error) {
		stop()
		return nil, nil, err
	}
	srv, err := embedded.Start(embedded.Options{Listen: "127.0.0.1:0", StoreDir: dir, Token: token})
	if err != nil {
		return fail(err)
	}
	closers = append(closers, func() error { srv.Shutdown(); return nil })
	conn, err := cluster.Connect(srv.ClientURL(), cluster.ClientOptions{Name: "master", Token: token})
	if err != nil {
		return fail(err)
	}
	closers = append(closers, func() error { conn.Close(); return nil })
	m, err := engine.NewMaster(o, config.MasterOptions{Conn: conn})
	if err != nil {
		return fail(err)
	}
	closers = append(closers, m.Close)
	if err := m.Start(); err != nil {
		return fail(err)
	}
	cmd := exec.Command(workerCmd[0], append(workerCmd[1:], "-nats", srv.ClientURL(), "-token", token)...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if workerCov != "" {
		cmd.Env = append(os.Environ(), "GOCOVERDIR="+workerCov)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return fail(err)
	}
	if err := cmd.Start(); err != nil {
		return fail(fmt.Errorf("start the worker %v: %w", workerCmd, err))
	}
	closers = append(closers, func() error {
		in.Close()
		if err := cmd.Wait(); err != nil {
			return fmt.Errorf("the worker process: %w", err)
		}
		return nil
	})
	return m, stop, nil
}

// pathsWorker runs a worker on the master's server until stdin closes, then closes
// it and returns (a normal exit, which writes the coverage counters).
func pathsWorker(natsURL, token string) error {
	if natsURL == "" {
		return fmt.Errorf("-role worker needs -nats and -token")
	}
	conn, err := cluster.Connect(natsURL, cluster.ClientOptions{Name: "w1", Token: token})
	if err != nil {
		return err
	}
	defer conn.Close()
	w, err := engine.StartWorker(config.WorkerOptions{Conn: conn, Node: "w1", Egress: []string{"bind:" + workerBinds(0)[0]},
		AllowPrivate: []string{"127.0.0.0/8"}})
	if err != nil {
		return err
	}
	io.Copy(io.Discard, bufio.NewReader(os.Stdin))
	w.Close()
	return nil
}

// pathsServer is the traced crawl's web: its pages count the page requests served.
type pathsServer struct {
	*httptest.Server
	pages atomic.Int64
}

// pathsWeb serves a chain of n pages at /p/0 ... /p/(n-1) on 127.0.0.1 (an address,
// no DNS name): each links to the next, back to the first and off the site, with a
// title and a paragraph of text; robots.txt allows everything.
func pathsWeb(n int) *pathsServer {
	s := &pathsServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
	})
	mux.HandleFunc("/p/{i}", func(w http.ResponseWriter, r *http.Request) {
		i, err := strconv.Atoi(r.PathValue("i"))
		if err != nil || i < 0 || i >= n {
			http.NotFound(w, r)
			return
		}
		s.pages.Add(1)
		next := ""
		if i+1 < n {
			next = fmt.Sprintf(`<li><a href="/p/%d">next</a></li>`, i+1)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><title>Page %d</title></head><body>
<nav><ul>%s<li><a href="/p/0">first</a></li><li><a href="http://elsewhere.example/">elsewhere</a></li></ul></nav>
<article><h1>Page %d of the chain</h1><p>%s</p><p>%s</p></article></body></html>`,
			i, next, i, strings.Repeat("A paragraph long enough to be read as the page's main text. ", 6),
			strings.Repeat("Another one, so that the page has an article to find. ", 6))
	})
	s.Server = httptest.NewServer(mux)
	return s
}
