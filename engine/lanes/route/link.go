package route

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/cookies"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Link is one egress address with its keep-alive transport (one per egress).
type Link struct {
	Name string
	// Index is the egress's index on the lane board (lanes.Runner.Links), fixed
	// once the egress is added: a lane's requests take their host's gate by it.
	Index int
	F     *fetch.Fetcher
	Eg    *egress.Egress // nil for the direct route
	Jar   *cookies.Jar   // this egress's cookie sessions, one per site; nil with cookies off
}

// NewLink joins an egress's fetcher to its own cookie jar (jar nil: cookies off).
func NewLink(name string, f *fetch.Fetcher, eg *egress.Egress, jar *cookies.Jar) *Link {
	l := &Link{Name: name, F: f, Eg: eg, Jar: jar}
	if jar != nil {
		f.SetJar(jar)
	}
	return l
}

// NewJar is one egress's cookie jar under the cookies options, or nil with cookies
// off. Every egress has its own: no site session crosses addresses.
func NewJar(c config.CookieOptions, now func() time.Time) *cookies.Jar {
	if !c.Enabled {
		return nil
	}
	return cookies.New(cookies.Limits{PerSite: c.PerSite, BytesPerSite: c.BytesPerSite, Sites: c.Sites}, now)
}

// CookieStats sums the cookie sessions kept and dropped over links' jars (nil
// links are egresses not built yet).
func CookieStats(links []*Link) view.CookieStats {
	var cs view.CookieStats
	for _, l := range links {
		if l != nil && l.Jar != nil {
			cs.Sessions += l.Jar.Sites()
			cs.Dropped += l.Jar.Dropped()
		}
	}
	return cs
}

// DropSession forgets a host's site session on this egress, which the host leaves
// after a refusal: that session belongs to an address the site refused, and the
// host goes on from another egress with that egress's own jar. It returns the
// cookie site forgotten, "" with cookies off.
func (l *Link) DropSession(host string) string {
	if l.Jar == nil {
		return ""
	}
	l.Jar.Forget(host)
	return cookies.Site(host)
}
