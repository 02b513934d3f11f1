package page

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Metadata is what a news reader asks of a page besides its text: when it was
// published and last modified, its headline, its authors, its language and its
// canonical URL, each with the place it was read from (Source). A field the page
// does not give is empty. It comes from the page's one parse (Parsed.Meta).
type Metadata struct {
	Published Date  // the publication date
	Modified  Date  // the last modification the page declares
	Headline  Field // the article's headline
	Authors   []string
	// AuthorsFrom is where Authors were read.
	AuthorsFrom Source
	Language    Field // an ISO 639 code, lower case ("en", "de", "zh")
	Canonical   Field // the page's canonical URL, absolute
}

// Field is one metadata value and where it was read.
type Field struct {
	Value string
	From  Source
}

// Source says where a metadata field was read: the markup and, for <meta> tags and
// JSON-LD, the name it was under. The values: "json-ld <key>", "meta <name>",
// "microdata <itemprop>", "time datetime", "url", "date line" (an element whose
// class or id names a date), "text" (a date line near the headline, or the page's
// most frequent date), "h1", "title", "byline", "rel author", "lang attribute",
// "script statistics", "link canonical".
type Source string

// Date is a date the page gives, in the page's own zone when it names one.
type Date struct {
	Time  time.Time // zero: none
	Clock bool      // the page gave a time of day
	Zone  bool      // and its zone; else Time is the wall clock as written, in UTC
	From  Source
}

// IsZero reports whether there is no date.
func (d Date) IsZero() bool { return d.Time.IsZero() }

// Day is the date's day as the page wrote it, YYYY-MM-DD ("" when none).
func (d Date) Day() string {
	if d.IsZero() {
		return ""
	}
	return d.Time.Format("2006-01-02")
}

// String is the date as precisely as the page gave it: 2024-03-05,
// 2024-03-05T10:20:00 (no zone) or 2024-03-05T10:20:00+01:00; "" when none.
func (d Date) String() string {
	switch {
	case d.IsZero():
		return ""
	case !d.Clock:
		return d.Day()
	case !d.Zone:
		return d.Time.Format("2006-01-02T15:04:05")
	}
	return d.Time.Format(time.RFC3339)
}

// ParseDate reads back a Date written by Date.String; from is its source.
func ParseDate(s string, from Source) (Date, bool) {
	for _, f := range []struct {
		layout      string
		clock, zone bool
	}{{time.RFC3339, true, true}, {"2006-01-02T15:04:05", true, false}, {"2006-01-02", false, false}} {
		if t, err := time.Parse(f.layout, s); err == nil {
			return Date{Time: t, Clock: f.clock, Zone: f.zone, From: from}, true
		}
	}
	return Date{}, false
}

// Date is the page's own date: its publication date, else its last modification.
func (m Metadata) Date() Date {
	if !m.Published.IsZero() {
		return m.Published
	}
	return m.Modified
}

// Earliest plausible date: news on the web starts in the 1990s; a page's "1970-01-01"
// or "1900" is a default, not a date.
var minDate = time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)

// The <meta> names of each field, best first.
var (
	publishedKeys = []string{"article:published_time", "og:article:published_time", "og:published_time",
		"article:published", "datepublished", "publishdate", "publish-date", "publish_date", "published_time",
		"published-date", "pubdate", "pub_date", "parsely-pub-date", "sailthru.date", "dc.date.issued",
		"dcterms.issued", "dc.date.created", "dcterms.created", "dc.created", "datecreated", "citation_publication_date",
		"citation_date", "article_date_original", "originalpublicationdate", "cxenseparse:recs:publishtime",
		"rnews:datepublished", "displaydate", "dc.date", "dcterms.date", "date", "og:pubdate", "article.published"}
	modifiedKeys = []string{"article:modified_time", "og:article:modified_time", "og:updated_time",
		"datemodified", "dcterms.modified", "dc.date.modified", "last-modified", "lastmod", "article.updated",
		"updated_time"}
	headlineKeys = []string{"og:title", "twitter:title", "headline", "sailthru.title", "parsely-title", "dc.title", "title"}
	authorKeys   = []string{"author", "article:author", "og:article:author", "parsely-author", "sailthru.author",
		"dc.creator", "dcterms.creator", "citation_author", "byl", "creator"}
	langKeys = []string{"content-language", "og:locale", "dc.language", "dcterms.language", "language", "inlanguage"}
)

// Meta is the page's metadata (Metadata) from its one parse. pageURL (may be "") is
// the page's address, for dates in it and to resolve the canonical URL; now bounds
// plausible dates (a date more than a day after it is an error or a schedule; zero
// means the clock's now).
func (p *Parsed) Meta(pageURL string, now time.Time) Metadata {
	if p == nil {
		return Metadata{}
	}
	p.mainText()
	if p.meta == nil {
		return Metadata{}
	}
	if now.IsZero() {
		now = time.Now()
	}
	return p.meta.build(pageURL, now)
}

// build makes Metadata of what the parse collected.
func (m *metaRaw) build(pageURL string, now time.Time) Metadata {
	var md Metadata
	ld := readJSONLD(m.jsonld)
	valid := func(t time.Time) bool {
		return !t.Before(minDate) && !t.After(now.Add(24*time.Hour))
	}
	var sc dateScanner
	parse := func(s string, from Source) Date {
		h, ok := sc.first(s)
		if !ok || !valid(h.t) {
			return Date{}
		}
		return Date{Time: h.t, Clock: h.clock, Zone: h.zone, From: from}
	}
	// Publication: structured data first (JSON-LD, <meta>, microdata, <time>), then
	// the URL, then the page's date line, then the visible text.
	pub := func() Date {
		if d := parse(ld.published, Source("json-ld "+ld.publishedKey)); !d.IsZero() {
			return d
		}
		if d := m.metaDate(publishedKeys, parse); !d.IsZero() {
			return d
		}
		if d := m.elemDate(parse, false); !d.IsZero() {
			return d
		}
		for _, u := range []string{pageURL, m.canonical} {
			if t, ok := urlDate(u); ok && valid(t) {
				return Date{Time: t, From: "url"}
			}
		}
		for _, l := range m.dateLines {
			if valid(l.hit.t) {
				return Date{Time: l.hit.t, Clock: l.hit.clock, Zone: l.hit.zone, From: "date line"}
			}
		}
		return m.textDate(valid)
	}
	md.Published = pub()
	md.Modified = parse(ld.modified, "json-ld dateModified")
	if md.Modified.IsZero() {
		md.Modified = m.metaDate(modifiedKeys, parse)
	}
	if md.Modified.IsZero() {
		md.Modified = m.elemDate(parse, true)
	}
	md.Headline = m.headline(ld)
	md.Authors, md.AuthorsFrom = m.authors(ld)
	md.Language = m.language(ld)
	md.Canonical = m.canonicalURL(ld, pageURL)
	return md
}

// metaDate is the first plausible date of the <meta> tags named keys, best key first.
func (m *metaRaw) metaDate(keys []string, parse func(string, Source) Date) Date {
	for _, k := range keys {
		for _, p := range m.metas {
			if p.key == k {
				if d := parse(p.val, Source("meta "+k)); !d.IsZero() {
					return d
				}
			}
		}
	}
	return Date{}
}

// elemDate is the date of the microdata (itemprop datePublished, or dateModified
// for modified) and then of the <time> elements: one marked as the publication
// (pubdate, or a class naming it), else the first.
func (m *metaRaw) elemDate(parse func(string, Source) Date, modified bool) Date {
	props := []string{"datepublished", "datecreated"}
	if modified {
		props = []string{"datemodified"}
	}
	for _, want := range props {
		for _, e := range m.elems {
			if e.prop != want {
				continue
			}
			src := Source("microdata " + want)
			if d := parse(e.datetime, src); !d.IsZero() {
				return d
			}
			if d := parse(e.text, src); !d.IsZero() {
				return d
			}
		}
	}
	if modified {
		return Date{}
	}
	first := Date{}
	for _, e := range m.elems {
		if e.datetime == "" || e.prop != "" && e.prop != "datepublished" {
			continue
		}
		d := parse(e.datetime, "time datetime")
		if d.IsZero() {
			continue
		}
		if e.pubdate {
			return d
		}
		if first.IsZero() {
			first = d
		}
	}
	return first
}

// textDate is the date of the visible text: the first one in the lines just below
// the headline, else the page's most frequent date (the first of equals).
func (m *metaRaw) textDate(valid func(time.Time) bool) Date {
	const nearHeadline = 2048
	if m.headAt >= 0 {
		for _, l := range m.textDates {
			if l.pos >= m.headAt && l.pos < m.headAt+nearHeadline && valid(l.hit.t) {
				return Date{Time: l.hit.t, Clock: l.hit.clock, Zone: l.hit.zone, From: "text"}
			}
		}
	}
	count := map[string]int{}
	best, bestN := -1, 0
	for i, l := range m.textDates {
		if !valid(l.hit.t) {
			continue
		}
		day := l.hit.t.Format("2006-01-02")
		count[day]++
		if n := count[day]; n > bestN {
			best, bestN = i, n
		}
	}
	if best < 0 {
		return Date{}
	}
	h := m.textDates[best].hit
	// The first mention of the winning day, which may carry its time of day.
	return Date{Time: h.t, Clock: h.clock, Zone: h.zone, From: "text"}
}

// urlDatePattern finds a date in a URL's path: /2024/03/05/, /2024-03-05-, /20240305.
var urlDatePattern = regexp.MustCompile(`(?:^|[^0-9])((?:19|20)[0-9]{2})[/_.-]?(0[1-9]|1[0-2])[/_.-]?(0[1-9]|[12][0-9]|3[01])(?:$|[^0-9])`)

// urlDate is the date a URL's path gives, if any.
func urlDate(raw string) (time.Time, bool) {
	if raw == "" {
		return time.Time{}, false
	}
	u, err := url.Parse(raw)
	if err != nil {
		return time.Time{}, false
	}
	path := clipBytes(u.EscapedPath(), 1024)
	mm := urlDatePattern.FindStringSubmatch(path)
	if mm == nil {
		return time.Time{}, false
	}
	y, _ := strconv.Atoi(mm[1])
	mo, _ := strconv.Atoi(mm[2])
	d, _ := strconv.Atoi(mm[3])
	if d > daysIn(y, mo) {
		return time.Time{}, false
	}
	return time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC), true
}

// metaValue is the first non-empty <meta> value of keys, best key first, and its key.
func (m *metaRaw) metaValue(keys []string, ok func(string) bool) (string, string) {
	for _, k := range keys {
		for _, p := range m.metas {
			if p.key == k && (ok == nil || ok(p.val)) {
				return p.val, k
			}
		}
	}
	return "", ""
}

// canonicalURL is <link rel=canonical>, else og:url, else the JSON-LD url, resolved
// against the page's address; only http(s).
func (m *metaRaw) canonicalURL(ld ldFacts, pageURL string) Field {
	ogURL, _ := m.metaValue([]string{"og:url"}, nil)
	for _, c := range []Field{{m.canonical, "link canonical"}, {ogURL, "meta og:url"}, {ld.url, "json-ld url"}} {
		if c.Value == "" {
			continue
		}
		if abs, ok := absoluteURL(c.Value, pageURL); ok {
			return Field{abs, c.From}
		}
	}
	return Field{}
}

// absoluteURL resolves ref against base; only an http(s) URL with a host will do.
func absoluteURL(ref, base string) (string, bool) {
	r, err := url.Parse(strings.TrimSpace(ref))
	if err != nil {
		return "", false
	}
	if base != "" {
		if b, err := url.Parse(base); err == nil {
			r = b.ResolveReference(r)
		}
	}
	if (r.Scheme != "http" && r.Scheme != "https") || r.Host == "" {
		return "", false
	}
	return r.String(), true
}
