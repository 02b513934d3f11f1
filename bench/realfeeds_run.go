package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/discover"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
)

// The realfeeds harness: one crawl of (a part of) the real-world corpus served by
// sandbox.RealWeb, from the home pages only, then a judgement of every document and
// every URL it lists from the store. The bench (realfeeds.go) and its test share it.

// realDoc is what became of one corpus document.
type realDoc struct {
	doc    sandbox.RealDoc
	url    string   // loopback URL serving it
	listed []string // what it lists (expected/), loopback, normalised
	stored int      // of listed, stored (state processed)
	// offSite counts listed URLs on another site than the document's (a feed's
	// items elsewhere): the engine refuses them by its scope rule.
	offSite        int
	storedSameSite int // of stored, those on the document's own site
	// parsed counts the listed URLs that the engine's parser reads from the
	// document as served (discover.ParseFrom with its URL and Content-Type): what a
	// crawl could store were nothing lost between the parser and the store.
	parsed int
	lost   bool   // it lists something, yet the crawl took nothing from it
	why    string // the engine's reason, when lost
	misses []realMiss
}

// realMiss is one listed URL that was not stored, and why.
type realMiss struct{ url, why string }

// realResult is one crawl's judgement.
type realResult struct {
	docs      []realDoc
	hosts     int
	requests  int
	fetched   int64
	elapsed   time.Duration
	idle      bool    // the crawl ran dry (engine Done) before the time limit
	peakRSSMB float64 // the process's peak resident set, MB
	skipped   map[string]int64
}

// listed and stored over all documents (a URL listed by two documents counts twice).
func (r realResult) totals() (listed, stored int) {
	for _, d := range r.docs {
		listed += len(d.listed)
		stored += d.stored
	}
	return listed, stored
}

// parserShare is the share of the listed URLs the engine's parser reads from the
// documents as served (1 when nothing is listed).
func (r realResult) parserShare() float64 {
	l, n := 0, 0
	for _, d := range r.docs {
		l += len(d.listed)
		n += d.parsed
	}
	if l == 0 {
		return 1
	}
	return float64(n) / float64(l)
}

// sameSite is foundShare over the listed URLs on their document's own site.
func (r realResult) sameSite() float64 {
	l, s := 0, 0
	for _, d := range r.docs {
		l += len(d.listed) - d.offSite
		s += d.storedSameSite
	}
	if l == 0 {
		return 1
	}
	return float64(s) / float64(l)
}

// foundShare is stored ÷ listed over all documents (1 when nothing is listed).
func (r realResult) foundShare() float64 {
	l, s := r.totals()
	if l == 0 {
		return 1
	}
	return float64(s) / float64(l)
}

// lost returns the documents lost, in corpus order.
func (r realResult) lost() []realDoc {
	var out []realDoc
	for _, d := range r.docs {
		if d.lost {
			out = append(out, d)
		}
	}
	return out
}

// realPart picks one document of each kind, encoding and Content-Type found in docs
// (the first in manifest order of each combination), in manifest order: every way a
// document can be served, once.
func realPart(docs []sandbox.RealDoc) []sandbox.RealDoc {
	seen := map[[3]string]bool{}
	var out []sandbox.RealDoc
	for _, d := range docs {
		k := [3]string{d.Kind, d.Encoding, d.ContentType}
		if !seen[k] {
			seen[k] = true
			out = append(out, d)
		}
	}
	return out
}

// realCrawl serves docs from dir, crawls them from the home pages until the crawl
// runs dry (or limit passes), and judges every document.
func realCrawl(dir string, docs []sandbox.RealDoc, lanes int, limit time.Duration) (realResult, error) {
	expected := make([][]string, len(docs))
	for i, d := range docs {
		var err error
		if expected[i], err = sandbox.RealExpected(dir, d); err != nil {
			return realResult{}, err
		}
	}
	w, err := sandbox.StartRealWeb(dir, docs)
	if err != nil {
		return realResult{}, err
	}
	defer w.Close()
	tmp, err := os.MkdirTemp("", "bench-realfeeds-")
	if err != nil {
		return realResult{}, err
	}
	defer os.RemoveAll(tmp)

	// The engine as a user runs it (discovery on, its defaults), pointed at loopback
	// as the block corpus is (bench blocks): every name resolves to 127.0.0.1,
	// private addresses allowed there, pauses of a few ms since every host is the
	// same local server.
	o := config.DefaultOptions()
	o.Seeds = w.Homes()
	o.DB = filepath.Join(tmp, "crawl.db")
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Resolver = loopbackResolver{}
	o.Lanes.Max = lanes
	o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, 3*time.Millisecond
	o.HostRate = 0
	o.Fetch.RefusalBackoff = 10 * time.Millisecond
	o.Fetch.RetryBackoff = 10 * time.Millisecond
	o.Fetch.MaxRetryAfter = 50 * time.Millisecond
	e, err := engine.New(o)
	if err != nil {
		return realResult{}, err
	}
	start := time.Now()
	if err := e.Start(); err != nil {
		e.Close()
		return realResult{}, err
	}
	r := realResult{hosts: len(o.Seeds)}
	select {
	case <-e.Done():
		r.idle = true
	case <-time.After(limit):
	}
	r.elapsed = time.Since(start)
	read := map[string]bool{} // sources the engine read as a feed or sitemap
	warnings := map[string]map[string]int{}
	for _, s := range e.Snapshot().Discovery {
		for _, u := range append(slices.Clone(s.Feeds), s.Sitemaps...) {
			read[u] = true
		}
		warnings[s.Site] = s.Warnings
	}
	st := e.Stats()
	r.fetched, r.skipped = st.PagesFetched, st.Skipped
	if err := e.Close(); err != nil {
		return realResult{}, err
	}
	r.requests = w.Requests()
	r.peakRSSMB = peakRSSMB()

	s, err := store.Open(o.DB, store.Options{})
	if err != nil {
		return realResult{}, err
	}
	defer s.Close()
	events, err := s.RecentEvents(1 << 20)
	if err != nil {
		return realResult{}, err
	}
	j := realJudge{w: w, s: s, read: read, warnings: warnings, events: events, skipped: r.skipped}
	for i, d := range docs {
		rd, err := j.doc(d, expected[i])
		if err != nil {
			return realResult{}, err
		}
		r.docs = append(r.docs, rd)
	}
	return r, nil
}

// realJudge reads what the crawl left: the store, the engine's discovery view and
// its log.
type realJudge struct {
	w        *sandbox.RealWeb
	s        *store.Store
	read     map[string]bool
	warnings map[string]map[string]int // by site
	events   []store.Event
	skipped  map[string]int64
}

// doc judges one document: which of its URLs were stored, whether the crawl took
// anything from it, and why not.
func (j realJudge) doc(d sandbox.RealDoc, expected []string) (realDoc, error) {
	rd := realDoc{doc: d, url: j.w.DocURL(d)}
	if n, err := realNormalize(rd.url); err == nil {
		rd.url = n
	}
	seen := map[string]bool{}
	for _, raw := range expected {
		m, ok := j.w.Map(raw)
		if !ok {
			continue
		}
		if n, err := realNormalize(m); err == nil {
			m = n
		}
		if !seen[m] {
			seen[m] = true
			rd.listed = append(rd.listed, m)
		}
	}
	states, err := j.s.URLStates(append([]string{rd.url}, rd.listed...))
	if err != nil {
		return rd, err
	}
	byURL := map[string]store.URL{}
	for _, u := range states {
		byURL[u.URL] = u
	}
	self, known := byURL[rd.url]
	parent := frontier.Hash(rd.url)
	took, allKnown := 0, true
	docSite := frontier.Site(hostOf(rd.url))
	for _, u := range rd.listed {
		same := frontier.Site(hostOf(u)) == docSite
		if !same {
			rd.offSite++
		}
		st, ok := byURL[u]
		if !ok {
			allKnown = false
		} else if st.ParentHash == parent {
			took++
		}
		if ok && st.State == store.Processed {
			rd.stored++
			if same {
				rd.storedSameSite++
			}
		}
	}
	// It yielded when the crawl read it as a feed or sitemap and it brought URLs in,
	// or everything it lists was already known from another document (the first to
	// list a URL is its parent) and the parser does read them from it. A feed read
	// as an HTML page is lost even when some of its items were queued: only what its
	// text happened to link was.
	parsed := j.parse(d)
	rd.parsed = parsed.count(rd.listed)
	yielded := j.read[rd.url] && (took > 0 || allKnown && rd.parsed > 0)
	rd.lost = len(rd.listed) > 0 && !yielded
	var readAs *realParsed
	if j.read[rd.url] {
		readAs = parsed
	}
	docWhy := j.docReason(rd, self, known, readAs)
	if rd.lost {
		rd.why = docWhy
	}
	for _, u := range rd.listed {
		st, ok := byURL[u]
		switch {
		case ok && st.State == store.Processed:
			continue
		case ok:
			why := "queued, ended " + st.State.String()
			if st.ErrKind != "" {
				why += ": " + st.ErrKind
			}
			rd.misses = append(rd.misses, realMiss{u, why})
			continue
		case rd.lost:
			rd.misses = append(rd.misses, realMiss{u, "its document was lost: " + docWhy})
			continue
		}
		rd.misses = append(rd.misses, realMiss{u, j.urlReason(rd.url, u, parsed)})
	}
	return rd, nil
}

// docReason is why the crawl took nothing from the document at rd.url, in the
// engine's words where it gave any: the URL's end state, what its log said about it,
// or that it was never read as a feed or sitemap.
func (j realJudge) docReason(rd realDoc, self store.URL, known bool, p *realParsed) string {
	var logged []string
	for _, ev := range j.events {
		if strings.Contains(ev.Msg, rd.url) {
			logged = append(logged, fmt.Sprintf("log: %q", ev.Msg))
		}
	}
	var parts []string
	switch {
	case !known:
		parts = append(parts, "never queued (not found from its home page, robots.txt or an index)")
	case self.State == store.Failed || self.State == store.Deferred:
		parts = append(parts, fmt.Sprintf("fetch ended %s: %s", self.State, self.ErrKind))
	case self.State != store.Processed:
		parts = append(parts, "still "+self.State.String())
	case !j.read[rd.url]:
		parts = append(parts, fmt.Sprintf("fetched and stored as a page (served as %q), never read as a feed or sitemap", rd.doc.ContentType))
	case p != nil:
		parts = append(parts, fmt.Sprintf("read as a feed or sitemap, none of what it lists kept (site warnings %v); the parser reads it as a %s of %d entries%s",
			j.warnings[frontier.Site(hostOf(rd.url))],
			p.doc.Kind, len(p.doc.Entries), realOthers(p, rd.listed)))
	default:
		parts = append(parts, fmt.Sprintf("read as a feed or sitemap, nothing kept (site warnings %v)", j.warnings[frontier.Site(hostOf(rd.url))]))
	}
	if len(logged) == 0 && (known && self.State == store.Processed || len(parts) == 0) {
		logged = append(logged, "nothing logged")
	}
	return strings.Join(append(parts, logged...), "; ")
}

// realParsed is the engine's own parser on a document as served.
type realParsed struct {
	doc discover.Doc
	err error
}

// urls is every URL the parser read: entries, and the pages' other languages.
func (p *realParsed) urls() []string {
	var out []string
	for _, en := range p.doc.Entries {
		out = append(out, en.URL)
		out = append(out, en.Alternates...)
	}
	return out
}

// count is how many of listed (normalised) the parser read.
func (p *realParsed) count(listed []string) int {
	got := map[string]bool{}
	for _, raw := range p.urls() {
		if n, err := realNormalize(raw); err == nil {
			got[n] = true
		}
	}
	n := 0
	for _, u := range listed {
		if got[u] {
			n++
		}
	}
	return n
}

func (j realJudge) parse(d sandbox.RealDoc) *realParsed {
	body, err := j.w.Body(d)
	if err != nil {
		return &realParsed{err: err}
	}
	doc, err := discover.ParseFrom(body, discover.Source{URL: j.w.DocURL(d), ContentType: d.ContentType},
		discover.Limits{MaxBytes: int64(config.DefaultOptions().Fetch.MaxBodyBytes)})
	return &realParsed{doc: doc, err: err}
}

// realOthers names up to two entries the parser read that the document does not
// list (an image sitemap's pictures in place of its pages, say).
func realOthers(p *realParsed, listed []string) string {
	var out []string
	for _, raw := range p.urls() {
		if len(out) == 2 {
			break
		}
		if n, err := realNormalize(raw); err != nil || !slices.Contains(listed, n) {
			out = append(out, raw)
		}
	}
	if len(out) == 0 {
		return ""
	}
	return fmt.Sprintf(", among them %q", out)
}

// urlReason is why a URL listed by a document the crawl took something from never
// reached the store: what the engine's parser makes of the document (does it list
// the URL, or a relative form it cannot queue?), its scope rule, else the trap
// guards and scope skips the crawl counted.
func (j realJudge) urlReason(docURL, u string, p *realParsed) string {
	if p.err != nil && len(p.doc.Entries) == 0 {
		return "the parser reads no entry from its document: " + p.err.Error()
	}
	base, _ := url.Parse(docURL)
	var rawForm string
	alternate := map[string]bool{}
	for _, en := range p.doc.Entries {
		for _, a := range en.Alternates {
			alternate[a] = true
		}
	}
	for _, raw := range p.urls() {
		if n, err := realNormalize(raw); err == nil {
			if n != u {
				continue
			}
			offSite := frontier.Site(hostOf(u)) != frontier.Site(hostOf(docURL))
			switch {
			case p.doc.Kind == discover.KindFeed && offSite && config.DefaultOptions().Discovery.FeedItemsOffSite:
				return "a feed's item on another site, let one hop past the scope (discovery.feed_items_off_site), never queued (" + realSkips(j.skipped) + ")"
			case !discover.Allowed(p.doc.Kind, docURL, u, nil):
				return fmt.Sprintf("refused off_host: a %s at %s may not announce it", p.doc.Kind, hostOf(docURL))
			case alternate[raw]:
				return "the parser gives it as an entry's hreflang alternate; never queued"
			}
			if offSite {
				return "on another site than its document: discovery lets it through, the crawl's scope (scope.same_site: the seeds' sites) does not (" + realSkips(j.skipped) + ")"
			}
			return "listed by the parser and in scope, never queued (" + realSkips(j.skipped) + ")"
		}
		if ref, err := url.Parse(strings.TrimSpace(raw)); err == nil && base != nil {
			if n, err := realNormalize(base.ResolveReference(ref).String()); err == nil && n == u {
				rawForm = raw
			}
		}
	}
	if rawForm != "" {
		return fmt.Sprintf("the parser gives it relative (%q), not resolved against the document's URL", rawForm)
	}
	return fmt.Sprintf("the parser does not list it (%d entries read as %s; warnings %v)", len(p.doc.Entries), p.doc.Kind, p.doc.Warnings)
}

// realSkips names the kinds of links the crawl skipped, with counts.
func realSkips(m map[string]int64) string {
	if len(m) == 0 {
		return "no skips counted"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return "skips counted: " + strings.Join(parts, ", ")
}

// hostOf is a URL's host name, lower case ("" when it does not parse).
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// peakRSSMB is this process's peak resident set size in MB (getrusage's ru_maxrss,
// KiB on Linux).
func peakRSSMB() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Maxrss) * 1024 / 1e6
}

// realVariants is the crawl's URL variant collapsing (the engine's defaults): a
// listed URL counts as stored under the URL the crawl keeps for it (a feed's
// ?wt_mc=rss... tracking parameter dropped).
var realVariants = frontier.NewVariants(config.DefaultOptions().URLVariants)

// realNormalize is frontier.Normalize and then the crawl's variant collapsing.
func realNormalize(u string) (string, error) {
	n, err := frontier.Normalize(u)
	if err != nil {
		return n, err
	}
	return realVariants.Collapse(n), nil
}
