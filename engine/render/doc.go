// Package render renders pages that build their content with script in a headless
// Chromium (chromium-headless-shell from Debian, driven over CDP by chromedp), and
// decides per host which pages need it.
//
// The browser never reaches the network itself: every request a page makes is
// paused (CDP Fetch domain) and answered through a function the caller gives
// (Job.Fetch: the lane's egress, SSRF guard, robots, host gate), and the browser
// runs behind a dead proxy so that anything not intercepted fails. The page's own
// document is answered from the plain fetch's body: a render never fetches the
// page a second time.
//
// A Pool keeps a few browser contexts, each tied to one (egress, site) so that the
// cookies a page's script sets stay that session's; a render that runs past its
// time or request cap, opens popups, navigates away or crashes its renderer is
// ended, its context disposed and made anew, and the caller keeps the page as
// fetched plainly, with the reason.
package render
