package lanes

import (
	"context"
	"errors"
	"maps"
	"net/netip"
	"net/url"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/lanes/internal/noanswer"
	"github.com/crawlconsole/crawlconsole/engine/lanes/route"
	"github.com/crawlconsole/crawlconsole/engine/robots"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// robotsFor returns the robots.txt rules of u's origin (raw: the text u was read
// from, or ""), fetching them through this lane's egress and the gate when they
// are missing or older than etiquette.robots_cache_for (a robots.txt request is a request to the host like any
// other, for the site's bot detection). Each fetch sets the host's Crawl-delay anew,
// capped at fetch.max_crawl_delay. refused is the SSRF guard's refusal of u's own
// host when that is why robots.txt got no answer (noanswer.RefusedOrigin), nil otherwise: the
// site's pages would be refused the same way. A host the operator held while the
// lane waited is not asked (errHostHeld), nor is a held host a redirect leads to
// (*heldHop, unless rules read before stand meanwhile).
func (r *Runner) robotsFor(link *route.Link, raw string, u *url.URL) (rules *robots.Rules, refused *fetch.BlockedError, err error) {
	origin := originOf(raw, u)
	host := u.Hostname()
	known, _ := r.Robots.Known(origin)
	rules, err = r.Robots.Get(r.Ctx, origin, func(ctx context.Context) (*robots.Rules, error) {
		if to := r.heldBehind(host); to != "" { // the same redirect would answer
			return nil, &heldHop{host: to}
		}
		tk, err := r.Gate.Acquire(ctx, link.Index, host, 0)
		if err != nil {
			return nil, err
		}
		if err := r.mayLeave(ctx, host, 0); err != nil { // a request to the host like any other
			r.Gate.Release(tk)
			return nil, err
		}
		rules := link.F.FetchRobots(ctx, origin, robots.ProductToken(r.Opts.UserAgent))
		r.Gate.Release(tk)
		if ctx.Err() != nil {
			return nil, ctx.Err() // stopping: not an answer from the site
		}
		if he, ok := errors.AsType[*fetch.HeldError](rules.Err); ok && strings.EqualFold(he.Host, host) {
			// The site's own host, held after mayLeave let the request go (the
			// transport refused it, or a same-host hop): as if mayLeave had.
			return nil, errHostHeld
		}
		if he, ok := errors.AsType[*fetch.HeldError](rules.Err); ok && (known == nil || known.Unreachable) {
			// Not followed: no answer about the site, so none is cached nor counted
			// as robots.txt not answering (its retry does not grow); the site waits
			// with the held host and asks again as the hold ends.
			r.Front.Logf(view.LevelInfo, 0, host, "robots.txt for %s redirects to %s, which the operator holds: not followed; the site's URLs wait for %s's hold to end, then robots.txt is asked again", origin, he.Host, he.Host)
			r.Mu.Lock()
			r.setBehind(host, he.Host)
			r.Mu.Unlock()
			return nil, &heldHop{host: strings.ToLower(he.Host)}
		}
		r.Mu.Lock()
		r.setBehind(host, "")
		r.Mu.Unlock()
		if rules.Unreachable && r.Pool != nil && egress.IsProxyError(rules.Err) {
			// The egress's proxy failed, not the site: the rotation hears of it and
			// the task moves to another egress, unless none may serve the host.
			v := egress.Verdict{Class: egress.ProxyFault, Reason: "proxy error on robots.txt"}
			if d := r.Pool.Report(link.Name, host, v); d.Action == egress.Retry || d.Action == egress.DeferHost {
				return nil, &proxyFault{v: v, d: d, err: rules.Err}
			}
		}
		if !rules.Unreachable {
			cd := rules.CrawlDelay
			if limit := r.maxCrawlDelay(); cd > limit {
				cd = limit
				r.Front.Logf(view.LevelWarn, 0, host, "robots.txt for %s asks Crawl-delay %v; capped at fetch.max_crawl_delay %v", origin, rules.CrawlDelay, limit)
			}
			r.Mu.Lock()
			if cd > 0 {
				r.crawlDelay[host] = cd
			} else {
				delete(r.crawlDelay, host) // new rules without a Crawl-delay lift the old one
			}
			r.Mu.Unlock()
		}
		if kind, final, ok := noanswer.NameFailure(rules.Err, host); rules.Unreachable && ok {
			// The operator must see at once that the name does not resolve (a
			// misspelt seed): the warning says so first, and what becomes of its URLs.
			tries := r.Robots.Failures(origin) + 1 // this answer is not counted yet
			switch {
			case final:
				r.Front.Logf(view.LevelWarn, 0, host, "dns: %s does not resolve (%s): its URLs fail as dns (robots.txt for %s not fetched)", host, kind, origin)
			case tries > r.Opts.Fetch.Retries:
				r.Front.Logf(view.LevelWarn, 0, host, "dns: %s does not resolve (%s, %d tries): its URLs fail as dns (robots.txt for %s not fetched)", host, kind, tries, origin)
			default:
				r.Front.Logf(view.LevelWarn, 0, host, "dns: %s does not resolve (%s, try %d of %d): its URLs wait, deferred, and it is asked again later (etiquette.robots_retry, doubling), then they fail as dns", host, kind, tries, r.Opts.Fetch.Retries+1)
			}
		} else if he, ok := errors.AsType[*fetch.HeldError](rules.Err); ok {
			r.Front.Logf(view.LevelInfo, 0, host, "robots.txt for %s redirects to %s, which the operator holds: not followed; the rules last read stand meanwhile, and robots.txt is asked again later (etiquette.robots_retry, doubling)", origin, he.Host)
		} else if rules.Unreachable && noanswer.RefusedHost(rules.Err, host) == nil { // the SSRF guard's refusal is warned of as such
			// The site's URLs now wait, counted as robots_unreachable: without the
			// reason (a refused connection, no such name, a 503) an operator whose
			// site is down or misspelt sees that count alone.
			r.Front.Logf(view.LevelWarn, 0, host, "robots.txt for %s did not answer (%s): the site's URLs wait, deferred, and robots.txt is asked again later (etiquette.robots_retry, doubling)", origin, rules.Note)
		} else {
			r.Front.Logf(view.LevelDebug, 0, host, "robots.txt for %s: %s", origin, rules)
		}
		return rules, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return rules, noanswer.RefusedOrigin(rules, u), nil
}

// heldHop is a robots.txt not asked, or not followed, because it redirects to a
// host the operator holds (host, lower-case): the site waits with that host
// (heldInHand).
type heldHop struct{ host string }

func (e *heldHop) Error() string {
	return "robots.txt redirects to " + e.host + ", which the operator holds"
}

// heldBehind is the held host the site host's robots.txt redirected to when last
// asked, "" when there is none or its hold ended. Mu not held.
func (r *Runner) heldBehind(host string) string {
	r.Mu.Lock()
	to := r.behind(host)
	r.Mu.Unlock()
	if to != "" && r.HostHeld(to) {
		return to
	}
	return ""
}

// Behind are the sites whose robots.txt redirects to a host the operator holds
// now, each with that host: the lanes hold their URLs back (the Sites pane says
// why). Mu not held.
func (r *Runner) Behind() map[string]string {
	r.Mu.Lock()
	m := maps.Clone(r.robotsBehind)
	r.Mu.Unlock()
	maps.DeleteFunc(m, func(_, held string) bool { return !r.HostHeld(held) })
	return m
}

// behind is the host the site host's robots.txt redirected to while the operator
// held it, "" for none; hosts are matched whatever their case. Mu held.
func (r *Runner) behind(host string) string { return r.robotsBehind[strings.ToLower(host)] }

// setBehind notes that the site host's robots.txt redirects to held, a host the
// operator holds; held "": it no longer does (its robots.txt answered). Mu held.
func (r *Runner) setBehind(host, held string) {
	if host = strings.ToLower(host); held == "" {
		delete(r.robotsBehind, host)
	} else {
		r.robotsBehind[host] = strings.ToLower(held)
	}
}

// proxyFault is a robots.txt fetch that failed at the egress's proxy: no answer
// about the site, so none is cached; the rotation's decision says where the task goes.
type proxyFault struct {
	v   egress.Verdict
	d   egress.Decision
	err error
}

func (e *proxyFault) Error() string { return "robots.txt: " + e.err.Error() }
func (e *proxyFault) Unwrap() error { return e.err }

// warnRefused tells the operator, once per host this run, that the SSRF guard
// refused a host's address (a WARN: its URLs fail as ssrf_blocked), and how to let
// it through (SSRFFix). first is the URL whose fetch met it first (the host may be a
// redirect's target).
func (r *Runner) warnRefused(be *fetch.BlockedError, first string) {
	if _, warned := r.ssrfWarned.LoadOrStore(strings.ToLower(be.Host), struct{}{}); warned {
		return
	}
	r.Front.Logf(view.LevelWarn, 0, be.Host, "%s (%s) refused by the SSRF guard (a loopback/private/reserved address), first at %s: "+
		"its URLs fail as ssrf_blocked (tried again at every start); to crawl it, "+r.SSRFFix,
		be.Host, be.Addr, first, netip.PrefixFrom(be.Addr, be.Addr.BitLen()))
}

// attachRobotsSitemaps puts the origin's robots.txt Sitemap lines on the first
// response from it (with discovery on: the front queues them). rules is nil when
// robots.txt is not read.
func (r *Runner) attachRobotsSitemaps(u *url.URL, rules *robots.Rules, res *fetch.Result) {
	if !r.Opts.Discovery.Enabled || res == nil {
		return
	}
	origin := u.Scheme + "://" + u.Host
	if _, seen := r.sitemapOrigins.Load(origin); seen { // every response but an origin's first: no store
		return
	}
	if _, seen := r.sitemapOrigins.LoadOrStore(origin, struct{}{}); seen {
		return
	}
	res.RobotsRead = true
	if rules != nil {
		res.RobotsSitemaps = rules.Sitemaps
	}
}

// originOf is u's scheme://host: raw's own prefix when raw is the text u was read
// from and spells it so (a task's URL, every page asks), else spelt anew.
func originOf(raw string, u *url.URL) string {
	n := len(u.Scheme) + len("://") + len(u.Host)
	if len(raw) >= n && raw[:len(u.Scheme)] == u.Scheme && raw[len(u.Scheme):len(u.Scheme)+3] == "://" && raw[len(u.Scheme)+3:n] == u.Host {
		return raw[:n]
	}
	return u.Scheme + "://" + u.Host
}
