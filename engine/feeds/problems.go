package feeds

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine/discover"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Why a feed or sitemap gave the crawl nothing is said once per document: a WARN
// line naming the document and the reason (then counted under
// discovery_yielded_nothing), and the site's row in the Sites pane lists its
// documents' current problems until a read of the document works again. A document
// polled every minute that stays broken is not logged again.

const (
	maxProblemsPerSite = 20      // documents with a problem kept per site for the Sites pane
	maxNoted           = 100_000 // documents whose problem was logged (then: counted, not logged)
	maxAnnounced       = 100_000 // feeds announced by pages' <link rel="alternate">
)

// loggedWarnings are the warnings of a document read that are worth a log line
// (once per document): the document was not what it said, or not read whole (its
// entities left unexpanded, children of an index refused as too deep or too many).
var loggedWarnings = []string{"encoding_mismatch", "unknown_encoding", "truncated", "malformed", "too_many_urls",
	"entities_ignored", "sitemap_depth", "sitemap_count"}

// documentSource is what a read of a document needs of its response: its URL after
// redirects (relative links resolve against it) and its Content-Type (its charset).
func documentSource(t frontier.Task, res *fetch.Result) discover.Source {
	src := discover.Source{URL: res.FinalURL, ContentType: res.Header.Get("Content-Type")}
	if src.URL == "" {
		src.URL = t.URL
	}
	if src.ContentType == "" {
		src.ContentType = res.ContentType
	}
	return src
}

// announce remembers the feeds a page announces (<link rel="alternate">), so that
// one refused for what it turned out to be is reported as a document.
func (d *Discovery) announce(res *fetch.Result) {
	page := res.FinalURL
	if page == "" {
		page = res.URL
	}
	base, err := frontier.ParseBase(page)
	if err != nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, raw := range res.Feeds {
		if len(d.announced) >= maxAnnounced {
			return
		}
		if n, err := base.Resolve(raw); err == nil {
			d.announced[n] = true
		}
	}
}

// feedLinksDropped says, once per page, that a page announced more feeds than
// page.MaxFeedLinks and how many of them were left out (counted under
// discovery_feed_links_dropped): the operator may declare those the crawl needs.
func (d *Discovery) feedLinksDropped(t frontier.Task, res *fetch.Result) {
	key := "feed links of " + t.URL
	d.mu.Lock()
	noted := d.noted[key]
	if !noted && len(d.noted) < maxNoted {
		d.noted[key] = true
	}
	d.mu.Unlock()
	if noted {
		return
	}
	d.c.Count("discovery_feed_links_dropped")
	d.c.Logf(view.LevelWarn, t.Host, "page %s announces %d feeds: the first %d are read, %d left out (declare those needed in discovery.feeds)",
		t.URL, len(res.Feeds)+res.FeedsDropped, len(res.Feeds), res.FeedsDropped)
}

// expected says whether u is a document discovery asked for or knows: a sitemap of
// the crawl, a feed or sitemap read before, one a page announced or the config
// declared.
func (d *Discovery) expected(u string) bool {
	if d.tree.Known(u) {
		return true
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	_, read := d.sources[u]
	return read || d.announced[u] || d.siteWide[u]
}

// FailedDocument is record's word on a feed or sitemap whose fetch failed (a 4xx or
// 5xx answer, or no answer: kind is what the URL ended as, status the HTTP status
// or 0): a document the crawl expected that yielded nothing, so the Sites pane's
// selected site and one WARN line say so, until a read works again. A declared
// source's problem says where it was declared: a typo'd URL in the config is the
// likeliest 404 an operator meets, and the crawl's http_4xx counts do not say
// which URL failed or where it came from. The /sitemap.xml asked for where
// robots.txt names no sitemap is no problem when it is missing (404 or 410: most
// sites have none), as the counts say (no_sitemap); any other failure of it (a
// 401, a 5xx, no answer) is one there too, and is listed.
func (d *Discovery) FailedDocument(t frontier.Task, kind string, status int) {
	if d == nil || !d.expected(t.URL) {
		return
	}
	probe := d.Probe(t.URL)
	if probe && (status == http.StatusNotFound || status == http.StatusGone) {
		return
	}
	d.mu.Lock()
	declared := d.siteWide[t.URL]
	d.mu.Unlock()
	why := kind
	if status != 0 {
		why = fmt.Sprintf("HTTP %d (%s)", status, kind)
	}
	if probe {
		why += "; asked for as robots.txt names no sitemap"
	}
	if declared {
		key := "feeds"
		if d.tree.Known(t.URL) { // declared sitemaps are the tree's roots, feeds are not
			key = "sitemaps"
		}
		why += "; the config's discovery." + key + " names it: check the URL"
	}
	d.documentProblem(t, why, true)
}

// Probe says whether u is only the /sitemap.xml asked for where robots.txt names
// no sitemap: not read before, not declared. Its failure is no problem (most sites
// have none), and record counts its 4xx as a skip, not an error.
func (d *Discovery) Probe(u string) bool {
	if d == nil {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	_, read := d.sources[u]
	return d.probed[u] && !read && !d.siteWide[u]
}

// RefusedDocument is record's word on a fetch that ended without a document: a
// feed or sitemap refused for its content (content_type: neither a page nor a feed
// or sitemap; binary; past the size cap) is a document that yielded nothing.
func (d *Discovery) RefusedDocument(t frontier.Task, kind string, res *fetch.Result) {
	if d == nil || !d.expected(t.URL) {
		return
	}
	why := kind
	if res != nil && res.DiscoveryError != "" {
		why += ": " + res.DiscoveryError
	} else if res != nil && res.ContentType != "" {
		why += fmt.Sprintf(" (served as %s)", res.ContentType)
	}
	d.documentProblem(t, why, true)
}

// documentRead looks at a document just read (readDocument): one that yielded no
// page says why; one read with a problem worth knowing (a lying encoding, cut off)
// says that; a document that yields pages again leaves the Sites pane's problems.
func (d *Discovery) documentRead(t frontier.Task, res *fetch.Result, doc *discover.Doc) {
	var why string
	switch {
	case len(doc.Entries) == 0:
		why = "it lists no URLs"
		if res.DiscoveryError != "" {
			why += ": " + res.DiscoveryError
		}
		if w := warningList(doc.Warnings, nil); w != "" {
			why += " (" + w + ")"
		}
	case len(res.Links) == 0 && doc.Kind != discover.KindIndex:
		why = fmt.Sprintf("all %d of its URLs were refused as off_host (a sitemap speaks for its own host and those whose robots.txt names it, a feed for its own site)", len(doc.Entries))
		if w := warningList(doc.Warnings, loggedWarnings); w != "" {
			why += "; read with warnings: " + w
		}
	}
	if why != "" {
		d.documentProblem(t, why, true)
		return
	}
	d.mu.Lock()
	delete(d.site(t.Host).problems, t.URL)
	d.mu.Unlock()
	if w := warningList(doc.Warnings, loggedWarnings); w != "" || res.DiscoveryError != "" {
		msg := w
		if res.DiscoveryError != "" {
			msg = strings.TrimPrefix(res.DiscoveryError+"; "+w, "; ")
		}
		d.documentProblem(t, fmt.Sprintf("read %d entries with warnings: %s", len(doc.Entries), strings.TrimSuffix(msg, "; ")), false)
	}
}

// documentProblem records why a document yielded nothing (nothing true: for the
// Sites pane, until a read works) or was read with a problem, and logs it the first
// time for that document.
func (d *Discovery) documentProblem(t frontier.Task, why string, nothing bool) {
	d.mu.Lock()
	if nothing {
		sd := d.site(t.Host)
		if _, ok := sd.problems[t.URL]; ok || len(sd.problems) < maxProblemsPerSite {
			sd.problems[t.URL] = why
		}
	}
	_, noted := d.noted[t.URL]
	if !noted && len(d.noted) < maxNoted {
		d.noted[t.URL] = true
	}
	d.mu.Unlock()
	if noted {
		return
	}
	if nothing {
		d.c.Count("discovery_yielded_nothing")
		d.c.Logf(view.LevelWarn, t.Host, "feed/sitemap %s yielded nothing: %s", t.URL, why)
		return
	}
	d.c.Logf(view.LevelWarn, t.Host, "feed/sitemap %s: %s", t.URL, why)
}

// warningList spells a document's warnings ("encoding_mismatch 1, not_http 3"),
// only those in only when it is not nil.
func warningList(w map[string]int, only []string) string {
	var out []string
	for k, n := range w {
		if only != nil && !contains(only, k) {
			continue
		}
		out = append(out, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
