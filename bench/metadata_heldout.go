package main

import (
	"bytes"
	"fmt"
	nurl "net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	htmldate "github.com/markusmobius/go-htmldate"
	trafilatura "github.com/markusmobius/go-trafilatura"

	"github.com/crawlconsole/crawlconsole/engine/page"
)

// A held-out date set: the publication dates (and authors) that the Postlight
// Parser's (Mercury's) per-site extractor tests assert on their fixture pages
// (github.com/postlight/parser, src/extractors/custom/*/index.test.js and
// fixtures/; MIT or Apache-2.0). Each label was written by the person who wrote
// that site's extractor, for that site's page, years before our rules existed, and
// none of our date rules was written looking at these pages: they are the figure
// the tuning set (htmldate's 1,000 pages) cannot give. bench/testdata/postlight-dates
// says how to get them and how they are read and scored.

// postlightPage is one fixture page and what its test asserts of it.
type postlightPage struct {
	Site, URL, Fixture string
	Published          time.Time // UTC; zero with NoDate: the test asserts null
	NoDate, HasDate    bool
	Authors            []string // nil: no author asserted
	HTML               []byte
}

var (
	plURL     = regexp.MustCompile("(?:url|articleUrl)\\s*=\\s*['`\"](https?://[^'`\"]+)['`\"]")
	plFixture = regexp.MustCompile("readFileSync\\(\\s*['`\"]\\./fixtures/([^'`\"]+)['`\"]")
	plLiteral = `(null|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|` + "`[^`]*`)"
	plDate    = regexp.MustCompile(`assert\.equal\(\s*date_published,\s*` + plLiteral)
	plAuthor  = regexp.MustCompile(`assert\.equal\(\s*author,\s*` + plLiteral)
	plAnd     = regexp.MustCompile(`\s*(?:,\s*and\s+|,\s*|\s+and\s+|\s*&\s*)`)
)

// jsString is a JavaScript string literal's text; ok false for null.
func jsString(lit string) (string, bool) {
	if lit == "null" || len(lit) < 2 {
		return "", false
	}
	s := lit[1 : len(lit)-1]
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		hex := map[byte]int{'x': 2, 'u': 4}[s[i]]
		if hex > 0 && i+hex < len(s) {
			if r, err := strconv.ParseUint(s[i+1:i+1+hex], 16, 32); err == nil {
				b.WriteRune(rune(r))
				i += hex
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String(), true
}

// loadPostlight reads every extractor test in dir/src/extractors/custom: in each
// file, the URL and fixture of a test case come before its asserts, so each
// date_published or author assert belongs to the last URL and fixture read. A
// date computed at run time (moment(...)) rather than written as a literal is not
// a label and is left out, as is a case whose fixture is missing.
func loadPostlight(dir string) ([]postlightPage, error) {
	tests, err := filepath.Glob(filepath.Join(dir, "src", "extractors", "custom", "*", "index.test.js"))
	if err != nil {
		return nil, err
	}
	if len(tests) == 0 {
		return nil, fmt.Errorf("no src/extractors/custom/*/index.test.js under %s", dir)
	}
	sort.Strings(tests)
	var pages []postlightPage
	for _, f := range tests {
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		site := filepath.Base(filepath.Dir(f))
		type event struct {
			at         int
			kind, text string
		}
		var evs []event
		for _, m := range plURL.FindAllSubmatchIndex(src, -1) {
			evs = append(evs, event{m[0], "url", string(src[m[2]:m[3]])})
		}
		for _, m := range plFixture.FindAllSubmatchIndex(src, -1) {
			evs = append(evs, event{m[0], "fixture", string(src[m[2]:m[3]])})
		}
		for _, m := range plDate.FindAllSubmatchIndex(src, -1) {
			evs = append(evs, event{m[0], "date", string(src[m[2]:m[3]])})
		}
		for _, m := range plAuthor.FindAllSubmatchIndex(src, -1) {
			evs = append(evs, event{m[0], "author", string(src[m[2]:m[3]])})
		}
		sort.Slice(evs, func(i, j int) bool { return evs[i].at < evs[j].at })
		byFixture := map[string]int{} // fixture → index in pages
		var url, fixture string
		for _, ev := range evs {
			switch ev.kind {
			case "url":
				url = ev.text
				continue
			case "fixture":
				fixture = ev.text
				continue
			}
			if fixture == "" || url == "" {
				continue
			}
			i, ok := byFixture[fixture]
			if !ok {
				body, err := os.ReadFile(filepath.Join(dir, "fixtures", fixture))
				if err != nil {
					continue
				}
				pages = append(pages, postlightPage{Site: site, URL: url, Fixture: fixture, HTML: body})
				i = len(pages) - 1
				byFixture[fixture] = i
			}
			p := &pages[i]
			s, notNull := jsString(ev.text)
			switch ev.kind {
			case "date":
				if !notNull {
					p.NoDate = true
					continue
				}
				t, err := time.Parse(time.RFC3339, s)
				if err != nil {
					continue
				}
				p.Published, p.HasDate = t.UTC(), true
			case "author":
				// null is the Parser's extractor finding no byline, not the page
				// having none: left unscored, as a null date is.
				if notNull {
					p.Authors = []string{}
					for _, a := range plAnd.Split(strings.TrimSpace(s), -1) {
						if a = strings.TrimSpace(a); a != "" {
							p.Authors = append(p.Authors, a)
						}
					}
				}
			}
		}
	}
	return pages, nil
}

// heldOutDay scores one answer, the day as the page wrote it, against a label
// given as a UTC instant. The Parser turns a page's local date and time into UTC
// (in the site's zone where its extractor names one), so the page's own day is
// the label's day in the page's zone: strict counts the UTC day only, loose any
// day the label falls on between UTC−12 and UTC+14 (two days, three when the
// label is between 10:00 and 12:00 UTC), which also takes a day off by one near
// midnight.
func heldOutDay(got string, label time.Time) (strict, loose bool) {
	if got == "" {
		return false, false
	}
	if got == label.Format(time.DateOnly) {
		return true, true
	}
	return false, got == label.Add(-12*time.Hour).Format(time.DateOnly) || got == label.Add(14*time.Hour).Format(time.DateOnly)
}

// heldOutScore counts answers on the held-out pages: as dateScore, the loose and
// strict day.
type heldOutScore struct{ loose, strict dateScore }

func (s *heldOutScore) add(got string, label time.Time) {
	strict, loose := heldOutDay(got, label)
	for _, x := range []struct {
		sc *dateScore
		ok bool
	}{{&s.strict, strict}, {&s.loose, loose}} {
		switch {
		case got == "":
			x.sc.fn++
		case x.ok:
			x.sc.tp++
		default:
			x.sc.fp++
		}
	}
}

// benchHeldOut scores publication days, ours and go-htmldate's, and authors, ours
// and go-trafilatura's, on the Parser's fixture pages.
//
// misses lists the held-out pages we got wrong: for reading once a change is made,
// never for writing rules from, or the set is no longer held out.
func benchHeldOut(dir string, tuningHosts map[string]bool, misses bool, out map[string]any) error {
	pages, err := loadPostlight(dir)
	if err != nil {
		return err
	}
	// Without and with the page's URL: htmldate's evaluation gives the HTML alone;
	// a crawl has the URL too, and many URLs carry the day.
	var ours, port, oursURL, portURL, oursFresh, portFresh heldOutScore
	var nullLabels, nullOurs, nullPort, dated, freshPages int
	var oursA, tfA fieldScore
	authorPages := 0
	for _, p := range pages {
		md := page.Parse(p.HTML, pageContentType, nil).Meta("", time.Time{})
		mdURL := page.Parse(p.HTML, pageContentType, nil).Meta(p.URL, time.Time{})
		got, gotURL := md.Date().Day(), mdURL.Date().Day()
		if os.Getenv("METADATA_DIFFS") != "" && got != gotURL {
			fmt.Printf("  %s: %q without the URL, %q with it\n", p.Fixture, got, gotURL)
		}
		portDay := func(opts htmldate.Options) string {
			opts.UseOriginalDate = true
			res, err := htmldate.FromReader(bytes.NewReader(p.HTML), opts)
			if err != nil || res.IsZero() {
				return ""
			}
			return res.DateTime.Format(time.DateOnly)
		}
		u, _ := nurl.Parse(p.URL)
		pd, pdURL := portDay(htmldate.Options{}), portDay(htmldate.Options{URL: p.URL})
		switch {
		case p.HasDate:
			dated++
			ours.add(got, p.Published)
			port.add(pd, p.Published)
			oursURL.add(gotURL, p.Published)
			portURL.add(pdURL, p.Published)
			if u != nil && !tuningHosts[u.Hostname()] {
				freshPages++
				oursFresh.add(got, p.Published)
				portFresh.add(pd, p.Published)
			}
			if misses {
				if _, ok := heldOutDay(got, p.Published); !ok {
					fmt.Printf("  held-out miss %s: got %q (%s), want %s, go-htmldate %q  %s\n", p.Fixture, got, md.Date().From, p.Published.Format(time.RFC3339), pd, p.URL)
				}
			}
		case p.NoDate:
			nullLabels++
			if got != "" {
				nullOurs++
			}
			if pd != "" {
				nullPort++
			}
		}
		if p.Authors != nil {
			authorPages++
			l := fieldLabel{Authors: p.Authors}
			oursA.add(l, "", mdURL.Authors)
			var tm trafilatura.Metadata
			if res, err := trafilatura.Extract(bytes.NewReader(p.HTML), trafilatura.Options{EnableFallback: true, OriginalURL: u}); err == nil && res != nil {
				tm = res.Metadata
			}
			var tfAuthors []string
			for _, a := range strings.Split(tm.Author, ";") {
				if a = strings.TrimSpace(a); a != "" {
					tfAuthors = append(tfAuthors, a)
				}
			}
			tfA.add(l, "", tfAuthors)
			if os.Getenv("METADATA_DIFFS") != "" {
				fmt.Printf("  %s: authors ours %q, go-trafilatura %q, label %q\n", p.Fixture, mdURL.Authors, tfAuthors, p.Authors)
			}
		}
	}
	fmt.Printf("metadata: held-out dates: the Postlight Parser's extractor tests (%d fixture pages, %d with a date asserted, %d asserting none; %s)\n", len(pages), dated, nullLabels, dir)
	fmt.Printf("  %-34s %9s %9s %9s %9s   %s\n", "extractor", "precision", "recall", "accuracy", "F1", "strict (UTC day) accuracy / F1")
	for _, row := range []struct {
		name, key string
		s         heldOutScore
	}{
		{"crawlconsole, HTML alone", "heldout_", ours},
		{"go-htmldate v1.9.1, HTML alone", "heldout_go_htmldate_", port},
		{"crawlconsole, with the URL", "heldout_url_", oursURL},
		{"go-htmldate v1.9.1, with the URL", "heldout_url_go_htmldate_", portURL},
	} {
		p, r, a, f := row.s.loose.figures()
		_, _, sa, sf := row.s.strict.figures()
		fmt.Printf("  %-34s %9.3f %9.3f %9.3f %9.3f   %.3f / %.3f\n", row.name, p, r, a, f, sa, sf)
		out[row.key+"date_accuracy"], out[row.key+"date_f1"] = round3(a), round3(f)
		out[row.key+"date_accuracy_strict"], out[row.key+"date_f1_strict"] = round3(sa), round3(sf)
	}
	_, _, fa, ff := oursFresh.loose.figures()
	_, _, pa, pf := portFresh.loose.figures()
	fmt.Printf("  on the %d dated pages whose host has no page in htmldate's 1,000 (the tuning set): ours %.3f / %.3f, go-htmldate %.3f / %.3f (accuracy / F1, HTML alone)\n", freshPages, fa, ff, pa, pf)
	fmt.Printf("  pages the test says have no date: ours gives one on %d of %d, go-htmldate on %d (not scored: the Parser's extractor found none, the page may show one)\n", nullOurs, nullLabels, nullPort)
	out["heldout_pages"], out["heldout_other_host_pages"] = dated, freshPages
	out["heldout_other_host_date_accuracy"], out["heldout_other_host_date_f1"] = round3(fa), round3(ff)
	out["heldout_other_host_go_htmldate_date_accuracy"], out["heldout_other_host_go_htmldate_date_f1"] = round3(pa), round3(pf)
	fmt.Printf("  authors on the %d pages whose test asserts them (%d names):\n", authorPages, oursA.authLabelled)
	for _, row := range []struct {
		name, key string
		s         fieldScore
	}{{"crawlconsole", "heldout_", oursA}, {"go-trafilatura", "heldout_go_trafilatura_", tfA}} {
		ap, ar := ratio(row.s.authTP, row.s.authGiven), ratio(row.s.authTP, row.s.authLabelled)
		fmt.Printf("    %-16s precision %.3f recall %.3f\n", row.name, ap, ar)
		out[row.key+"author_precision"], out[row.key+"author_recall"] = round3(ap), round3(ar)
	}
	fmt.Println()
	return nil
}

// hostsOf are the hosts of the pages' URLs.
func hostsOf(pages []datePage) map[string]bool {
	m := map[string]bool{}
	for _, p := range pages {
		if u, err := nurl.Parse(p.URL); err == nil {
			m[u.Hostname()] = true
		}
	}
	return m
}
