package render

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"
)

// The session's cookie jar (Job.Jar) is the one truth of a (egress, site)'s
// cookies: the plain fetches and the page's own requests (sent through the
// crawler's client) read and fill it. The browser context only mirrors it so that
// a page's script sees them (document.cookie), and what the script changes there is
// taken back into the jar after the render, so that the next plain fetch of the
// site carries it.

// cookieKey names a cookie as a browser tells it apart (RFC 6265 §5.3 step 11).
type cookieKey struct{ name, domain, path string }

// maxHarvest bounds the cookies taken back from one render: a page that sets
// thousands is cut here (and the jar's per-site bounds cut further).
const maxHarvest = 200

// giveCookies sets the jar's cookies for the page's URL in the tab's browser
// context and returns the context's cookies as they then are, the state the
// render's changes are judged against. Cookies the jar gives carry only a name and
// a value: they are set for the page's host, path /.
func giveCookies(ctx context.Context, bc cdp.BrowserContextID, jar http.CookieJar, page string) map[cookieKey]string {
	u, err := url.Parse(page)
	if err != nil || jar == nil {
		return nil
	}
	var ps []*network.CookieParam
	for _, c := range jar.Cookies(u) {
		ps = append(ps, &network.CookieParam{Name: c.Name, Value: c.Value, URL: u.Scheme + "://" + u.Host + "/", Path: "/"})
	}
	if len(ps) > 0 {
		// A cookie the browser refuses (a name it finds invalid) is left out of the
		// page; the plain fetches still send it.
		if _, err := chromedp.Call(ctx, network.SetCookies, network.SetCookiesParams{Cookies: ps}); err != nil {
			for _, p := range ps {
				chromedp.Call(ctx, network.SetCookies, network.SetCookiesParams{Cookies: []*network.CookieParam{p}})
			}
		}
	}
	return browserCookies(ctx, bc)
}

// browserCookies are the cookies of the tab's browser context by key; nil when
// they cannot be read.
func browserCookies(ctx context.Context, bc cdp.BrowserContextID) map[cookieKey]string {
	cs, err := contextCookies(ctx, bc)
	if err != nil {
		return nil
	}
	m := make(map[cookieKey]string, len(cs))
	for _, c := range cs {
		m[cookieKey{c.Name, c.Domain, c.Path}] = c.Value
	}
	return m
}

// contextCookies are every cookie of the browser context bc (the session's).
func contextCookies(ctx context.Context, bc cdp.BrowserContextID) ([]*network.Cookie, error) {
	res, err := chromedp.CallBrowser(ctx, storage.GetCookies, storage.GetCookiesParams{BrowserContextID: bc})
	return res.Cookies, err
}

// takeCookies puts into the jar what the page changed in its browser context
// since before (giveCookies's state): cookies its script set or changed, and
// those it deleted. Cookies it did not touch are left alone: the jar may have
// changed them meanwhile (another page of the session, a plain fetch). It returns
// how many cookies it put.
func takeCookies(ctx context.Context, bc cdp.BrowserContextID, jar http.CookieJar, before map[cookieKey]string) int {
	if jar == nil || before == nil {
		return 0
	}
	cs, err := contextCookies(ctx, bc)
	if err != nil {
		return 0
	}
	n := 0
	after := make(map[cookieKey]bool, len(cs))
	for _, c := range cs {
		k := cookieKey{c.Name, c.Domain, c.Path}
		after[k] = true
		if v, ok := before[k]; ok && v == c.Value {
			continue
		}
		if n >= maxHarvest {
			break
		}
		hc := &http.Cookie{Name: c.Name, Value: c.Value, Path: c.Path, Secure: c.Secure, HttpOnly: c.HTTPOnly}
		if !c.Session && c.Expires > 0 {
			hc.Expires = time.Unix(int64(c.Expires), 0)
		}
		if strings.HasPrefix(c.Domain, ".") {
			hc.Domain = c.Domain[1:]
		}
		jar.SetCookies(cookieURL(c.Domain, c.Path, c.Secure), []*http.Cookie{hc})
		n++
	}
	for k := range before {
		if after[k] || n >= maxHarvest {
			continue
		}
		hc := &http.Cookie{Name: k.name, Path: k.path, MaxAge: -1}
		if strings.HasPrefix(k.domain, ".") {
			hc.Domain = k.domain[1:]
		}
		jar.SetCookies(cookieURL(k.domain, k.path, false), []*http.Cookie{hc})
		n++
	}
	return n
}

// cookieURL is a URL a cookie of domain and path is set from.
func cookieURL(domain, path string, secure bool) *url.URL {
	scheme := "http"
	if secure {
		scheme = "https"
	}
	if path == "" {
		path = "/"
	}
	return &url.URL{Scheme: scheme, Host: strings.TrimPrefix(domain, "."), Path: path}
}
