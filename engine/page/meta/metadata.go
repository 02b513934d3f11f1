package meta

import (
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html/atom"
)

// Metadata is what a news reader asks of a page besides its text: when it was
// published and last modified, its headline, its authors, its language and its
// canonical URL, each with the place it was read from (Source). A field the page
// does not give is empty. It comes from the page's one parse (engine/page Parsed.Meta).
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
// "microdata <itemprop>", "time datetime", "date attribute" (the title of an element
// whose class or id names a date), "url", "date line" (an element whose
// class or id names a date), "text" (a date line near the headline, or the page's
// most frequent date), "h1", "title", "byline", "rel author", "lang attribute",
// "script <key>" (a JSON key in the page's scripts), "image url" (the lead image's
// file name), "script statistics", "link canonical".
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

// Build makes Metadata of what the parse collected. pageURL (may be "") is the
// page's address, for dates in it and to resolve the canonical URL; now bounds
// plausible dates (a date more than a day after it is an error or a schedule).
func (m *Raw) Build(pageURL string, now time.Time) Metadata {
	var md Metadata
	ld := readJSONLD(m.jsonld)
	valid := func(t time.Time) bool {
		return !t.Before(minDate) && !t.After(now.Add(24*time.Hour))
	}
	sc := newScanner()
	defer sc.release()
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
		// A date in the URL is the one the site filed the article under (as
		// htmldate reads it): the canonical URL's first, and the page's.
		for _, u := range []string{m.canonical, m.ogURL(), ld.url, pageURL} {
			if t, ok := urlDate(u); ok && valid(t) {
				// The page's own stamp of that day, when it has one, says the time.
				for _, d := range []Date{m.metaDate(publishedKeys, parse), parse(ld.published, Source("json-ld "+ld.publishedKey))} {
					if d.Day() == t.Format("2006-01-02") {
						return d
					}
				}
				return Date{Time: t, From: "url"}
			}
		}
		// The <meta> tags before JSON-LD: where they disagree, JSON-LD is more
		// often a template's or a related item's.
		if d := m.metaDate(publishedKeys, parse); !d.IsZero() {
			return d
		}
		if ld.publishedKey != "uploadDate" {
			if d := parse(ld.published, Source("json-ld "+ld.publishedKey)); !d.IsZero() {
				return d
			}
		}
		if d := m.microdata(parse, false); !d.IsZero() {
			return d
		}
		// Then what the page shows: a <time> (or a date-named element's title), a
		// date line, a date in the text, each first near the headline (sidebars and
		// related articles carry dates of their own), then anywhere.
		for _, near := range []bool{true, false} {
			line := Date{}
			timeDist := m.distance(m.timePos(parse))
			lineDist := 1 << 30
			if i := m.nearHeadline(len(m.dateLines), func(i int) int { return m.dateLines[i].pos },
				func(i int) bool { return valid(m.dateLines[i].hit.t) }, !near); i >= 0 {
				h := m.dateLines[i].hit
				line = Date{Time: h.t, Clock: h.clock, Zone: h.zone, From: "date line"}
				lineDist = m.distance(m.dateLines[i].pos)
				if near && lineDist < timeDist {
					return line // nearer the headline than any <time>
				}
			}
			if near {
				// A plain line of text right below the headline ("Published March
				// 5, 2024") beats a <time> further away.
				if i := m.nearHeadline(len(m.textDates), func(i int) int { return m.textDates[i].pos },
					func(i int) bool { return valid(m.textDates[i].hit.t) }, false); i >= 0 {
					if dist := m.distance(m.textDates[i].pos); dist < timeDist && dist < lineDist && dist < nearText {
						h := m.textDates[i].hit
						return Date{Time: h.t, Clock: h.clock, Zone: h.zone, From: "text"}
					}
				}
			}
			if d := m.timeDate(parse, near); !d.IsZero() {
				return d
			}
			if near {
				if d := parse(ld.published, Source("json-ld "+ld.publishedKey)); !d.IsZero() {
					return d // a video's upload date
				}
			}
			if !line.IsZero() {
				return line
			}
			if d := m.textDate(valid, near); !d.IsZero() {
				return d
			}
		}
		// A date in the page's own scripts (its state as JSON), by key.
		for _, k := range scriptKeys {
			for _, p := range m.scriptDates {
				if p.key == k {
					if d := parse(p.val, Source("script "+k)); !d.IsZero() {
						return d
					}
				}
			}
		}
		// The date in the lead image's file name (a CMS names uploads by day).
		if img, _ := m.metaValue([]string{"og:image", "twitter:image"}, nil); img != "" {
			if t, ok := urlDate(img); ok && valid(t) {
				return Date{Time: t, From: "image url"}
			}
		}
		return Date{}
	}
	md.Published = m.inPageZone(pub(), ld, parse)
	if md.Published.IsZero() && m.yearless.ok {
		md.Published = yearOf(m.yearless, now)
	}
	md.Modified = parse(ld.modified, "json-ld dateModified")
	if md.Modified.IsZero() {
		md.Modified = m.metaDate(modifiedKeys, parse)
	}
	if md.Modified.IsZero() {
		md.Modified = m.microdata(parse, true)
	}
	md.Modified = m.inPageZone(md.Modified, ld, parse)
	md.Headline = m.headline(ld)
	md.Authors, md.AuthorsFrom = m.authors(ld)
	md.Language = m.language(ld)
	md.Canonical = m.canonicalURL(ld, pageURL)
	return md
}

// recentDays is how far before the crawl day a date line without a year is read in
// the crawl's year (or the year before, across New Year): sites print the day
// alone for the current season's news and add the year to older stories.
const recentDays = 92

// yearOf dates a month and day without a year, on a page that gives no date with a
// year anywhere (its URLs, stamps and text would have been its date): in the year
// that puts it at most recentDays before the crawl day, else not at all (a day
// after the crawl day, or an older one, could be any year; a wrong year is worse
// than none).
func yearOf(y yearlessDate, now time.Time) Date {
	for _, yr := range []int{now.Year(), now.Year() - 1} {
		t := time.Date(yr, time.Month(y.month), y.day, y.hour, y.min, 0, 0, time.UTC)
		if t.Day() != y.day { // 02月29日 in a year that has none (time.Date made it March 1st)
			continue
		}
		if !t.After(now.Add(24*time.Hour)) && now.Sub(t) <= recentDays*24*time.Hour && !t.Before(minDate) {
			return Date{Time: t, Clock: y.clock, From: "date line, year from the crawl day"}
		}
	}
	return Date{}
}

// inPageZone gives a date stamped in UTC in the zone the page's other stamps name:
// a CMS that writes its JSON-LD in UTC and its <time> elements in local time means
// the local day ("2023-11-09T03:28Z" is the evening of the 8th in New York).
func (m *Raw) inPageZone(d Date, ld ldFacts, parse func(string, Source) Date) Date {
	if d.IsZero() || !d.Zone || !d.Clock {
		return d
	}
	if _, off := d.Time.Zone(); off != 0 {
		return d
	}
	zoned := func(s string) bool {
		z := parse(s, "")
		if z.IsZero() || !z.Zone {
			return false
		}
		if _, off := z.Time.Zone(); off != 0 {
			d.Time = d.Time.In(z.Time.Location())
			return true
		}
		return false
	}
	for _, e := range m.elems {
		if e.datetime != "" && zoned(e.datetime) {
			return d
		}
	}
	for _, p := range m.metas {
		if zoned(p.val) {
			return d
		}
	}
	for _, s := range []string{ld.published, ld.modified} {
		if zoned(s) {
			return d
		}
	}
	return d
}

// ogURL is the page's og:url.
func (m *Raw) ogURL() string {
	v, _ := m.metaValue([]string{"og:url"}, nil)
	return v
}

// metaDate is the first plausible date of the <meta> tags named keys, best key first.
func (m *Raw) metaDate(keys []string, parse func(string, Source) Date) Date {
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

// microdata is the date of the microdata: itemprop datePublished (dateModified for
// modified), its datetime or content, else its text.
func (m *Raw) microdata(parse func(string, Source) Date, modified bool) Date {
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
	return Date{}
}

// timeDate is the date of a <time datetime> (or of a date-named element's title):
// near the headline, or (near false) the first on the page. One marked as the
// publication (pubdate, a class naming it) goes before the others.
func (m *Raw) timeDate(parse func(string, Source) Date, near bool) Date {
	dates := make([]Date, len(m.elems))
	for i, e := range m.elems {
		if e.datetime == "" || e.prop != "" && e.prop != "datepublished" {
			continue
		}
		src := Source("time datetime")
		if e.tag != atom.Time {
			src = "date attribute"
		}
		dates[i] = parse(e.datetime, src)
	}
	for _, marked := range []bool{true, false} {
		i := m.nearHeadline(len(m.elems), func(i int) int { return m.elems[i].pos },
			func(i int) bool { return !dates[i].IsZero() && (m.elems[i].pubdate || !marked) }, !near)
		if i >= 0 {
			return dates[i]
		}
	}
	return Date{}
}

// nearText is the distance from the headline within which a line of text is
// taken as the article's date line.
const nearText = 256

// distance is how far a place in the visible text is from the headline, as
// nearHeadline weighs it.
func (m *Raw) distance(p int) int {
	d := p - m.headAt
	if d < 0 {
		d = -2 * d
	}
	return d
}

// timePos is where the <time> timeDate picks near the headline stands (past the end
// of any page when none).
func (m *Raw) timePos(parse func(string, Source) Date) int {
	best := 1 << 30
	for _, e := range m.elems {
		if e.datetime == "" || e.prop != "" && e.prop != "datepublished" || parse(e.datetime, "").IsZero() {
			continue
		}
		if m.distance(e.pos) < m.distance(best) {
			best = e.pos
		}
	}
	return best
}

// nearHeadline picks among n dated things, of those ok accepts, the one nearest the
// headline (above it counts double: a kicker or a category line is less often the
// date than the line below); with no headline, or none near it, the first when anyway
// is set; -1 for none.
func (m *Raw) nearHeadline(n int, pos func(int) int, ok func(int) bool, anyway bool) int {
	const below, above = 4096, 512
	first, best, bestDist := -1, -1, 0
	for i := 0; i < n; i++ {
		if !ok(i) {
			continue
		}
		if first < 0 {
			first = i
		}
		if m.headAt < 0 {
			break
		}
		p := pos(i)
		dist := p - m.headAt
		if dist < 0 {
			dist = -2 * dist
		}
		if p < m.headAt-above || p >= m.headAt+below {
			continue
		}
		if best < 0 || dist < bestDist {
			best, bestDist = i, dist
		}
	}
	if best < 0 && anyway {
		return first
	}
	return best
}

// textDate is the date of the visible text: the one nearest the headline (near),
// else the page's most frequent date (stamps with a time of day weigh more; the
// first of equals).
func (m *Raw) textDate(valid func(time.Time) bool, near bool) Date {
	if near {
		i := m.nearHeadline(len(m.textDates), func(i int) int { return m.textDates[i].pos },
			func(i int) bool { return valid(m.textDates[i].hit.t) }, false)
		if i < 0 {
			return Date{}
		}
		h := m.textDates[i].hit
		return Date{Time: h.t, Clock: h.clock, Zone: h.zone, From: "text"}
	}
	count := map[string]int{}
	best, bestN := -1, 0
	for i, l := range m.textDates {
		if !valid(l.hit.t) {
			continue
		}
		day := l.hit.t.Format("2006-01-02")
		// A date with its time of day is a stamp ("2016-11-18 06:31"), the page's
		// own more often than a date named in its prose: it counts thrice.
		if l.hit.clock {
			count[day] += 3
		} else {
			count[day]++
		}
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

// metaValue is the first non-empty <meta> value of keys, best key first, and its key.
func (m *Raw) metaValue(keys []string, ok func(string) bool) (string, string) {
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
func (m *Raw) canonicalURL(ld ldFacts, pageURL string) Field {
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
