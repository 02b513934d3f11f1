package engine

import (
	"github.com/crawlconsole/crawlconsole/engine/cookies"
)

// newJar is one egress's cookie jar, or nil with cookies off.
func (e *Engine) newJar() *cookies.Jar {
	if !e.opts.Cookies.Enabled {
		return nil
	}
	c := e.opts.Cookies
	return cookies.New(cookies.Limits{PerSite: c.PerSite, BytesPerSite: c.BytesPerSite, Sites: c.Sites}, e.opts.Now)
}

// cookieStats sums every egress's jar; nil with cookies off.
func (e *Engine) cookieStats() *CookieStats {
	if !e.opts.Cookies.Enabled || e.role == roleMaster { // a master fetches nothing
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var cs CookieStats
	for _, l := range e.egress {
		if l != nil && l.jar != nil {
			cs.Sessions += l.jar.Sites()
			cs.Dropped += l.jar.Dropped()
		}
	}
	return &cs
}

// dropSession forgets a host's site session on the egress the host leaves after a
// refusal (M3 reroute): that session belongs to an address the site refused. The
// host goes on from another egress with that egress's own jar, never this one's, so
// no session crosses addresses.
func (e *Engine) dropSession(link *egressLink, host string) {
	if link.jar == nil {
		return
	}
	link.jar.Forget(host)
	e.logf(LevelDebug, 0, host, "cookie session for %s on %s dropped: the host moves to another egress", cookies.Site(host), link.name)
}
