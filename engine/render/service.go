package render

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// Service renders the pages that need it: the Decider picks them, the Pool renders
// them, and what each render showed is learned. The lanes call Page for every HTML
// page they fetched. It is safe for concurrent use.
type Service struct {
	Pool    *Pool
	Decider *Decider
	// OnPage, if set before the crawl starts, hears what became of each HTML page
	// (benchmarks and tests compare crawls with it).
	OnPage func(PageReport)
	// Jar, if set before the crawl starts, is an egress's cookie jar (nil: none):
	// the browser context of (egress, site) shares the session's cookies.
	Jar func(egress string) http.CookieJar
	// ScrollFor, if set before the crawl starts, is how many scroll steps a
	// render of host's pages takes (Job.Scroll; nil: none).
	ScrollFor func(host string) int

	assets assetCache
	mu     sync.Mutex
	hosts  map[string]*HostStats
}

// NewService is a Service over pool, deciding with d (nil: Auto everywhere).
func NewService(pool *Pool, d *Decider) *Service {
	if d == nil {
		d = &Decider{}
	}
	return &Service{Pool: pool, Decider: d, hosts: map[string]*HostStats{}}
}

// PageReport is what became of one HTML page: rendered or not, and what the crawl
// read from it (the rendered DOM's features, or the plain fetch's).
type PageReport struct {
	URL, Host string
	Rendered  bool   // a DOM replaced the plain page
	Note      string // why a render failed or ended early
	Features  Features
}

// HostStats are one host's renders and their cost.
type HostStats struct {
	Host     string
	Pages    int64         // HTML pages the decider looked at
	Renders  int64         // renders that gave a DOM
	Failed   int64         // renders that ended without one (pages kept as fetched)
	Requests int64         // the pages' own requests sent through the egress
	Time     time.Duration // time spent rendering
	// Unsettled are its pages that never settled (Rendered.Unsettled, or a
	// script that did not yield): its next pages render in a hurry (Job.Hurry).
	Unsettled int64
	Dynamic   bool // the host's last verdict: its pages gain from rendering
}

// Send sends one of a page's requests through the lane (egress, SSRF guard,
// robots, host gate) and returns the fetch's result.
type Send = func(ctx context.Context, req *http.Request) (*fetch.Result, error)

// Page renders res's page if it needs it, its requests sent with send. nil: not
// rendered. A Rendering without a DOM says why the page is kept as fetched.
func (s *Service) Page(ctx context.Context, egress string, res *fetch.Result, send Send) *fetch.Rendering {
	if render, _ := s.Plan(egress, res); render != nil {
		return render(ctx, send)
	}
	return nil
}

// Plan decides whether res's page is rendered: nil when it is not, else the render,
// which blocks until the page is rendered or kept as fetched (a Rendering without a
// DOM says why) and must be called once. Deciding is quick; the caller may run the
// render beside its other work, unless learn says the render teaches its section's
// verdict: the section's next pages are decided on it, so it is best awaited.
func (s *Service) Plan(egress string, res *fetch.Result) (render func(ctx context.Context, send Send) *fetch.Rendering, learn bool) {
	if res == nil || res.Body == nil || !strings.Contains(res.ContentType, "html") && res.ContentType != "" {
		return nil, false
	}
	// Read where it stands when canonical (every fetched page is asked for).
	var pu url.URL
	u := &pu
	if !frontier.ParseCanonical(res.FinalURL, u) {
		var err error
		if u, err = url.Parse(res.FinalURL); err != nil {
			return nil, false
		}
	}
	if u.Host == "" {
		return nil, false
	}
	host := u.Hostname()
	plain := PageFeatures(res)
	need, why := s.Decider.Need(host, res.FinalURL, plain)
	hs := s.host(host)
	rep := PageReport{URL: res.FinalURL, Host: host, Features: plain}
	if !need {
		if s.OnPage != nil {
			s.OnPage(rep)
		}
		return nil, false
	}
	return func(ctx context.Context, send Send) *fetch.Rendering {
		rd := s.render(ctx, egress, host, res, send, plain, hs, &rep)
		if s.OnPage != nil {
			s.OnPage(rep)
		}
		return rd
	}, why == WhyLearning
}

func (s *Service) render(ctx context.Context, egress, host string, res *fetch.Result, send Send, plain Features, hs *HostStats, rep *PageReport) *fetch.Rendering {
	var mu sync.Mutex
	var sub []fetch.Exchange
	j := Job{Egress: egress, Site: host, URL: res.FinalURL, Status: res.Status, Header: res.Header, Body: res.Body,
		Fetch: func(ctx context.Context, req *http.Request) (*Response, error) {
			if r := s.assets.get(req); r != nil {
				return r, nil
			}
			fr, err := send(ctx, req)
			if fr != nil {
				mu.Lock()
				sub = append(sub, fr.Exchanges...)
				mu.Unlock()
			}
			if err != nil {
				return nil, err
			}
			r := &Response{Status: fr.Status, Header: fr.Header, Body: fr.Body}
			s.assets.put(req, fr.ContentType, r)
			return r, nil
		}}
	if s.Jar != nil {
		j.Jar = s.Jar(egress)
	}
	if s.ScrollFor != nil {
		j.Scroll = s.ScrollFor(host)
	}
	s.mu.Lock()
	j.Hurry = hs.Unsettled > 0
	s.mu.Unlock()
	out, err := s.Pool.Render(ctx, j)
	mu.Lock()
	rd := &fetch.Rendering{Sub: sub}
	mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		rd.Note = err.Error()
		rep.Note = rd.Note
		hs.Failed++
		if errors.Is(err, ErrNoYield) {
			hs.Unsettled++
		}
		return rd
	}
	if out.Unsettled {
		hs.Unsettled++
	}
	rd.DOM, rd.Requests, rd.Blocked, rd.Took, rd.Note = out.DOM, out.Requests, out.Blocked, out.Took, out.Note
	rendered := DOMFeatures(out.DOM)
	rep.Rendered, rep.Features, rep.Note = true, rendered, out.Note
	if out.Note == "" { // a page cut at the time cap says nothing of its section
		rd.Section, rd.Dynamic = s.Decider.LearnVerdict(host, res.FinalURL, plain, rendered)
	}
	hs.Renders++
	hs.Requests += int64(out.Requests)
	hs.Time += out.Took
	hs.Dynamic = Gained(plain, rendered)
	return rd
}

// maxHosts bounds the per-host figures kept.
const maxHosts = 10000

func (s *Service) host(h string) *HostStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	hs := s.hosts[h]
	if hs == nil {
		if len(s.hosts) >= maxHosts {
			for k, v := range s.hosts { // drop a host that never rendered
				if v.Renders == 0 && v.Failed == 0 {
					delete(s.hosts, k)
					break
				}
			}
		}
		hs = &HostStats{Host: h}
		s.hosts[h] = hs
	}
	hs.Pages++
	return hs
}

// Hosts are the figures of the hosts that had a page rendered, busiest first.
func (s *Service) Hosts() []HostStats {
	s.mu.Lock()
	var out []HostStats
	for _, hs := range s.hosts {
		if hs.Renders+hs.Failed > 0 {
			out = append(out, *hs)
		}
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Renders != out[j].Renders {
			return out[i].Renders > out[j].Renders
		}
		return out[i].Host < out[j].Host
	})
	return out
}

// HostFigures is one host's figures (zero when it had no page looked at).
func (s *Service) HostFigures(host string) HostStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	if hs := s.hosts[host]; hs != nil {
		return *hs
	}
	return HostStats{Host: host}
}

// assetCache keeps a site's scripts and stylesheets across renders: every render
// of an SPA loads the same app.js, and each request costs the host's politeness
// gap. GETs only, 200 only, small bodies, a bounded number.
type assetCache struct {
	mu    sync.Mutex
	m     map[string]*Response
	order []string
}

const (
	assetMax     = 256
	assetMaxBody = 2 << 20
)

func (c *assetCache) get(req *http.Request) *Response {
	if req.Method != http.MethodGet {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[req.URL.String()]
}

func (c *assetCache) put(req *http.Request, contentType string, r *Response) {
	if req.Method != http.MethodGet || r.Status != http.StatusOK || len(r.Body) > assetMaxBody ||
		!(strings.Contains(contentType, "javascript") || contentType == "text/css") {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*Response{}
	}
	k := req.URL.String()
	if _, ok := c.m[k]; ok {
		return
	}
	if len(c.order) >= assetMax {
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
	c.m[k] = r
	c.order = append(c.order, k)
}
