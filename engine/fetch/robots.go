package fetch

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/robots"
)

// robotsMaxBytes is how much decoded robots.txt the client reads: one byte more than
// robots.MaxBytes, so the parser can tell a cut-off file (and drop its last line).
const robotsMaxBytes = robots.MaxBytes + 1

// FetchRobots downloads origin's robots.txt through this egress and reads it for our
// product token (RFC 9309 §2.3; robots.FromResponse says what each answer means).
// Redirects are followed up to robots.MaxRedirects hops, to other hosts too; a
// network failure, a 429 or a 5xx gives unreachable rules (everything disallowed for
// now). It never fails: the caller looks at ctx to tell a stop from an answer.
func (f *Fetcher) FetchRobots(ctx context.Context, origin, token string) *robots.Rules {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, origin+"/robots.txt", nil)
	if err != nil {
		return robots.DisallowAll(0, err.Error())
	}
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	resp, err := f.robots.Do(req)
	if err != nil {
		r := robots.DisallowAll(0, fmt.Sprintf("robots.txt not fetched (%s): %v", Kind(err), err))
		r.Err = err // the engine tells the SSRF guard's refusal (a *BlockedError) from a site down
		return r
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil && Kind(err) != KindTooLarge {
		return robots.DisallowAll(0, fmt.Sprintf("robots.txt body cut (%s): %v", Kind(err), err))
	}
	r := robots.FromResponse(resp.StatusCode, body, token)
	if r.Unreachable {
		r.RetryAfter = egress.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	if final := resp.Request.URL; final.Host != req.URL.Host || final.Path != req.URL.Path {
		r.Note += " via " + final.String()
	}
	return r
}

// robotsRedirect follows robots.txt redirects across hosts (RFC 9309 §2.3.1.2) —
// "http://example.com/robots.txt" → "https://www.example.com/robots.txt" is the most
// common layout on the web — with the SSRF guard on every new host and the
// politeness pause on same-host hops; never to a host the operator holds
// (Config.Held).
func (f *Fetcher) robotsRedirect(req *http.Request, via []*http.Request) error {
	// More hops, a loop or another scheme: the last 3xx stands, which
	// robots.FromResponse reads as "unavailable" (allow all).
	if len(via) > robots.MaxRedirects {
		return http.ErrUseLastResponse
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return http.ErrUseLastResponse
	}
	target := req.URL.String()
	for _, v := range via {
		if v.URL.String() == target {
			return http.ErrUseLastResponse // a loop: as many hops as it takes, all in vain
		}
	}
	if f.cfg.Held != nil && f.cfg.Held(req.URL.Hostname()) {
		return &HeldError{Host: req.URL.Hostname()} // the site's robots.txt stays unread, for now
	}
	prev := via[len(via)-1]
	if req.URL.Host != prev.URL.Host {
		if _, err := f.dialer.Allowed(req.Context(), req.URL.Hostname()); err != nil {
			return err
		}
		return nil
	}
	return f.pauseRedirect(req)
}

// HeldError is a request not sent because the operator holds its host (Config.Held):
// a robots.txt redirect not followed (the rules are unreachable, for now, and the
// site's URLs wait for robots.txt to be asked again), or an attempt the transport
// refused (HeldRefusal), a page's then waiting for the hold's end.
type HeldError struct {
	Host string
}

func (e *HeldError) Error() string {
	return "not sent to " + e.Host + ": the operator holds the host (paused or disabled)"
}

// HeldRefusal is a transport's check of every attempt at a request (egress.
// TransportConfig.Refuse; the direct transport's own): a request to a host held
// says gets a *HeldError, unsent. net/http asks it before each attempt, so it
// holds what no check above the client sees: a request the transport sends again
// by itself on a new connection after a kept-alive one failed under it (the
// server may hang up on purpose as the operator pauses its host), and a redirect
// hop whose host was held after CheckRedirect let it go. nil for a nil held.
func HeldRefusal(held func(host string) bool) func(req *http.Request) error {
	if held == nil {
		return nil
	}
	return func(req *http.Request) error {
		if host := req.URL.Hostname(); held(host) {
			return &HeldError{Host: host}
		}
		return nil
	}
}
