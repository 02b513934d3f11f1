package sandbox

import (
	"net/http"
	"strings"
)

// The cookie pages are a consent flow as many news and social sites have one, for
// the crawler's cookie sessions across plain fetches and renders:
//
//   - /c/welcome, plain HTML, sets the cookie visitor=v1 and links to /c/consent.
//   - /c/consent is a shell whose script sets consent=yes (document.cookie) only
//     when it sees visitor=v1, asks /api/session (which sets api=1 with
//     Set-Cookie), and then builds the link to /c/gated.
//   - /c/gated answers its article, with a link to /c/member, only to a request
//     that carries consent=yes and api=1; to any other it answers a consent wall
//     linking to /c/wall.
//
// A crawler whose renders and plain fetches share one cookie session fetches
// /c/member and never /c/wall.
func cookiePages(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/api/session":
		http.SetCookie(w, &http.Cookie{Name: "api", Value: "1", Path: "/"})
		writeJSON(w, map[string]bool{"ok": true})
	case "/c/welcome":
		http.SetCookie(w, &http.Cookie{Name: "visitor", Value: "v1", Path: "/"})
		spaPage(w, http.StatusOK, `<h1>Welcome</h1><p>Read our <a href="/c/consent">consent page</a>.</p>`)
	case "/c/consent":
		spaPage(w, http.StatusOK, `<div id="root"></div><script id="__INITIAL_STATE__" type="application/json">{"view":"consent"}</script>
<noscript>This site needs JavaScript.</noscript><script>
if (document.cookie.indexOf('visitor=v1') >= 0) { document.cookie = 'consent=yes; path=/'; }
fetch('/api/session').then(function(r){ return r.json(); }).then(function(){
  var a = document.createElement('a'); a.href = '/c/gated'; a.textContent = 'Members';
  document.getElementById('root').appendChild(a);
});
</script>`)
	case "/c/gated":
		if hasCookie(r, "consent", "yes") && hasCookie(r, "api", "1") {
			spaPage(w, http.StatusOK, `<article><h1>Members</h1><p>The story behind the consent wall.</p><a href="/c/member">more</a></article>`)
			return
		}
		spaPage(w, http.StatusOK, `<h1>Consent needed</h1><p>Accept our cookies first.</p><a href="/c/wall">why</a>`)
	case "/c/member", "/c/wall":
		spaPage(w, http.StatusOK, `<p>`+strings.TrimPrefix(r.URL.Path, "/c/")+`</p>`)
	default:
		http.NotFound(w, r)
	}
}

func hasCookie(r *http.Request, name, value string) bool {
	c, err := r.Cookie(name)
	return err == nil && c.Value == value
}
