package main

// go run ./bench realweb [-corpus DIR] [-misses]: the page model on real non-English
// article pages (bench/testdata/realweb: 59 pages from the test suites of
// mozilla/readability, newspaper4k, goose3, trafilatura and htmldate, each page's
// source and licence in its MANIFEST.tsv), per language and overall, against
// go-trafilatura and readeck/go-readability in the same run:
//
//   - main text, by the kind of label the suite has: "full" (the whole article text,
//     readability's expected.html or newspaper4k's .txt): bag-of-tokens F1 per page,
//     averaged; "prefix" (goose3 keeps the first part of the text only): the share of
//     the prefix's tokens found in the extraction (recall only); "snippets"
//     (trafilatura's evaluation): the share of its "with" snippets present plus
//     "without" snippets absent. Tokens are one character for the scripts written
//     without spaces (Han, kana, Hangul syllables, Thai, Lao, Khmer, Myanmar) and
//     lower-cased runs of letters and digits otherwise: character F1 for Chinese and
//     Japanese, word F1 for the rest;
//   - headline: exact (equal once case and punctuation are set aside) and near (one
//     is the other with up to four words of a site's name, or contains it);
//   - byline: a page counts when one of the names given contains a labelled name or
//     is contained in it (labels such as "Par Sébastien Farcis" keep their prefix);
//     precision over pages where a name was given, recall over labelled pages;
//   - publication day against the label (pages with one);
//   - language: the primary subtag against the label;
//   - our CPU a page: page.Parse, PageText and Meta on one parse.
//
// The labels are the suites' own expectations, several written by the library that
// checks them: readability's text labels are Mozilla Readability's output, which
// readeck/go-readability ports, so it starts ahead on those pages.

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
	"unicode"

	readability "codeberg.org/readeck/go-readability/v2"
	trafilatura "github.com/markusmobius/go-trafilatura"

	"github.com/crawlconsole/crawlconsole/engine/page"
)

func init() { register("realweb", runRealweb) }

// defaultRealweb is the corpus, relative to the repository root.
const defaultRealweb = "bench/testdata/realweb"

// realwebPage is one page of the corpus and its labels (labels.json).
type realwebPage struct {
	ID       string   `json:"id"`
	URL      string   `json:"url"`
	Lang     string   `json:"lang"`
	Charset  string   `json:"charset"`
	Title    string   `json:"title"`
	Authors  []string `json:"authors"`
	Date     string   `json:"date"`
	TextKind string   `json:"text_kind"`
	Text     string   `json:"text"`
	With     []string `json:"with"`
	Without  []string `json:"without"`
	HTML     []byte   `json:"-"`
}

// contentType is how the page is handed to the extractors: with the charset the
// saved copy is in when the suite re-encoded it, else none (the page decides).
func (p *realwebPage) contentType() string {
	if p.Charset != "" {
		return "text/html; charset=" + p.Charset
	}
	return "text/html"
}

func loadRealweb(dir string) ([]realwebPage, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "labels.json"))
	if err != nil {
		return nil, err
	}
	var pages []realwebPage
	if err := json.Unmarshal(raw, &pages); err != nil {
		return nil, err
	}
	for i := range pages {
		f, err := os.Open(filepath.Join(dir, "pages", pages[i].ID+".html.gz"))
		if err != nil {
			return nil, err
		}
		zr, err := gzip.NewReader(f)
		if err == nil {
			pages[i].HTML, err = io.ReadAll(zr)
		}
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", pages[i].ID, err)
		}
	}
	return pages, nil
}

// realwebAnswer is what one extractor says of a page.
type realwebAnswer struct {
	Text, Headline, Day, Lang string
	Authors                   []string
}

type realwebExtractor struct {
	name string
	run  func(p *realwebPage) realwebAnswer
}

func realwebExtractors() []realwebExtractor {
	return []realwebExtractor{
		{"crawlconsole", oursRealweb},
		{"go-trafilatura", func(p *realwebPage) realwebAnswer {
			res, err := trafilatura.Extract(bytes.NewReader(p.HTML), trafilatura.Options{EnableFallback: true, OriginalURL: parseURLOrNil(p.URL)})
			if err != nil || res == nil {
				return realwebAnswer{}
			}
			a := realwebAnswer{Text: res.ContentText, Headline: res.Metadata.Title, Lang: res.Metadata.Language}
			if !res.Metadata.Date.IsZero() {
				a.Day = res.Metadata.Date.Format("2006-01-02")
			}
			for _, n := range strings.Split(res.Metadata.Author, ";") {
				if n = strings.TrimSpace(n); n != "" {
					a.Authors = append(a.Authors, n)
				}
			}
			return a
		}},
		{"readeck-readability", func(p *realwebPage) realwebAnswer {
			rp := readability.NewParser()
			art, err := rp.Parse(bytes.NewReader(p.HTML), parseURLOrNil(p.URL))
			if err != nil {
				return realwebAnswer{}
			}
			var sb strings.Builder
			_ = art.RenderText(&sb)
			a := realwebAnswer{Text: sb.String(), Headline: art.Title(), Lang: art.Language()}
			if t, err := art.PublishedTime(); err == nil && !t.IsZero() {
				a.Day = t.Format("2006-01-02")
			}
			if b := strings.TrimSpace(art.Byline()); b != "" {
				a.Authors = []string{b}
			}
			return a
		}},
	}
}

func oursRealweb(p *realwebPage) realwebAnswer {
	t, _ := page.MainText(p.HTML, p.contentType())
	md := page.Parse(p.HTML, p.contentType(), nil).Meta(p.URL, time.Time{})
	return realwebAnswer{Text: t.Body, Headline: md.Headline.Value, Day: md.Published.Day(), Lang: md.Language.Value, Authors: md.Authors}
}

// realwebTally sums one extractor's scores over a group of pages.
type realwebTally struct {
	fullN                             int
	fullF1                            float64
	prefixN                           int
	prefixRecall                      float64
	snipN                             int
	snipPass                          float64
	headN, headExact, headNear        int
	bylineN, bylineGiven, bylineRight int
	bylineRightGiven                  int
	dateN, dateRight, dateWrong       int
	langN, langRight                  int
}

func (t *realwebTally) add(p *realwebPage, a realwebAnswer) {
	switch p.TextKind {
	case "full":
		t.fullN++
		t.fullF1 += bagF1(p.Text, a.Text)
	case "prefix":
		t.prefixN++
		t.prefixRecall += bagRecall(p.Text, a.Text)
	case "snippets":
		t.snipN++
		t.snipPass += snippetScore(p.With, p.Without, a.Text)
	}
	if p.Title != "" {
		t.headN++
		if normTitle(a.Headline) == normTitle(p.Title) && normTitle(p.Title) != "" {
			t.headExact++
			t.headNear++
		} else if nearHeadline(a.Headline, p.Title) {
			t.headNear++
		}
	}
	if len(p.Authors) > 0 {
		t.bylineN++
		if len(a.Authors) > 0 {
			t.bylineGiven++
			if sameByline(a.Authors, p.Authors) {
				t.bylineRightGiven++
			}
		}
		if sameByline(a.Authors, p.Authors) {
			t.bylineRight++
		}
	}
	if p.Date != "" {
		t.dateN++
		switch {
		case a.Day == p.Date:
			t.dateRight++
		case a.Day != "":
			t.dateWrong++
		}
	}
	t.langN++
	if primaryLang(a.Lang) == p.Lang {
		t.langRight++
	}
}

func primaryLang(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.IndexAny(s, "-_"); i >= 0 {
		s = s[:i]
	}
	return s
}

// nearHeadline: the same headline once a site's name is added or taken away.
func nearHeadline(got, want string) bool {
	if sameHeadline(got, want) {
		return true
	}
	a, b := normTitle(got), normTitle(want)
	if a == "" || b == "" {
		return false
	}
	// Scripts without spaces put the site's name after the headline with no word
	// boundary normTitle could see ("标题_光明网" is one run of letters).
	return len([]rune(a)) >= 4 && strings.Contains(b, a) || len([]rune(b)) >= 4 && strings.Contains(a, b)
}

// sameByline: one of the names given and one labelled name, one within the other.
func sameByline(got, want []string) bool {
	for _, g := range got {
		gn := normTitle(g)
		if len([]rune(gn)) < 2 {
			continue
		}
		for _, w := range want {
			wn := normTitle(w)
			if len([]rune(wn)) >= 2 && (strings.Contains(wn, gn) || strings.Contains(gn, wn)) {
				return true
			}
		}
	}
	return false
}

// unspaced reports a script written without spaces between words: its text is
// scored a character a token.
func unspaced(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

// bagTokens are a text's tokens: one character of an unspaced script, else a
// lower-cased run of letters, marks and digits.
func bagTokens(s string) map[string]int {
	out := map[string]int{}
	var word []rune
	flush := func() {
		if len(word) > 0 {
			out[string(word)]++
			word = word[:0]
		}
	}
	for _, r := range s {
		switch {
		case unspaced(r):
			flush()
			out[string(r)]++
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r):
			word = append(word, unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
	return out
}

func bagOverlap(truth, pred string) (tp, nt, np int) {
	t, p := bagTokens(truth), bagTokens(pred)
	for k, c := range t {
		tp += min(c, p[k])
		nt += c
	}
	for _, c := range p {
		np += c
	}
	return
}

func bagF1(truth, pred string) float64 {
	tp, nt, np := bagOverlap(truth, pred)
	if tp == 0 {
		return 0
	}
	pr, rc := float64(tp)/float64(np), float64(tp)/float64(nt)
	return 2 * pr * rc / (pr + rc)
}

func bagRecall(truth, pred string) float64 {
	tp, nt, _ := bagOverlap(truth, pred)
	return ratio(tp, nt)
}

// snippetScore is trafilatura's evaluation rule: a "with" snippet found and a
// "without" snippet absent each count one, white space set aside.
func snippetScore(with, without []string, text string) float64 {
	flat := strings.Join(strings.Fields(text), " ")
	n, ok := 0, 0
	for _, s := range with {
		n++
		if strings.Contains(flat, strings.Join(strings.Fields(s), " ")) {
			ok++
		}
	}
	for _, s := range without {
		n++
		if !strings.Contains(flat, strings.Join(strings.Fields(s), " ")) {
			ok++
		}
	}
	return ratio(ok, n)
}

func runRealweb(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("realweb", flag.ContinueOnError)
	dir := fs.String("corpus", defaultRealweb, "the corpus: labels.json, pages/ (bench/testdata/realweb)")
	misses := fs.Bool("misses", false, "list our answers that differ from the labels")
	reps := fs.Int("reps", 3, "passes over the pages for our CPU figure")
	perPage := fs.Bool("pages", false, "a line a page with the whole text labelled: each extractor's text F1")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	pages, err := loadRealweb(*dir)
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread() // thread CPU time below is this goroutine's
	defer runtime.UnlockOSThread()

	groups := []string{}
	byLang := map[string]bool{}
	for _, p := range pages {
		if !byLang[p.Lang] {
			byLang[p.Lang] = true
			groups = append(groups, p.Lang)
		}
	}
	sort.Strings(groups)
	groups = append(groups, "all")
	exs := realwebExtractors()
	tallies := make([]map[string]*realwebTally, len(exs))
	pageF1 := make([][]float64, len(pages))
	for i, ex := range exs {
		tallies[i] = map[string]*realwebTally{}
		for _, g := range groups {
			tallies[i][g] = &realwebTally{}
		}
		for j := range pages {
			p := &pages[j]
			a := ex.run(p)
			tallies[i][p.Lang].add(p, a)
			tallies[i]["all"].add(p, a)
			if p.TextKind == "full" {
				pageF1[j] = append(pageF1[j], bagF1(p.Text, a.Text))
			}
			if *misses && i == 0 {
				realwebMisses(p, a)
			}
		}
	}
	var cpu time.Duration
	for r := 0; r < *reps; r++ {
		c0 := threadCPU()
		for j := range pages {
			q := page.Parse(pages[j].HTML, pages[j].contentType(), nil)
			q.PageText()
			q.Meta(pages[j].URL, time.Time{})
		}
		cpu += threadCPU() - c0
	}
	cpuPage := cpu / time.Duration(*reps*len(pages))

	fmt.Printf("realweb: %d non-English pages (%s)\n", len(pages), *dir)
	fmt.Println("  text: F1 of tokens (a character a token for Chinese, Japanese, Korean, Thai, Myanmar; words otherwise) on pages with the whole text labelled,")
	fmt.Println("  prefix recall where only the text's beginning is, snippet score where trafilatura's with/without snippets are")
	fmt.Printf("%-5s %-20s %10s %10s %10s %10s %10s %11s %10s %10s\n", "lang", "extractor", "text F1", "prefix R", "snippets", "head ex", "head near", "byline P/R", "date", "lang")
	if *perPage {
		fmt.Printf("%-5s %-28s", "lang", "page (text F1)")
		for _, ex := range exs {
			fmt.Printf(" %20s", ex.name)
		}
		fmt.Println()
		for j := range pages {
			if pageF1[j] == nil {
				continue
			}
			fmt.Printf("%-5s %-28s", pages[j].Lang, pages[j].ID)
			for _, f := range pageF1[j] {
				fmt.Printf(" %20.3f", f)
			}
			fmt.Println()
		}
	}
	out := map[string]any{"pages": len(pages), "cpu_us_page": round3(float64(cpuPage.Nanoseconds()) / 1e3)}
	for _, g := range groups {
		for i, ex := range exs {
			t := tallies[i][g]
			cell := func(sum float64, n int) string {
				if n == 0 {
					return "-"
				}
				return fmt.Sprintf("%.3f/%d", sum/float64(n), n)
			}
			frac := func(a, n int) string {
				if n == 0 {
					return "-"
				}
				return fmt.Sprintf("%d/%d", a, n)
			}
			fmt.Printf("%-5s %-20s %10s %10s %10s %10s %10s %5s %5s %10s %10s\n", g, ex.name,
				cell(t.fullF1, t.fullN), cell(t.prefixRecall, t.prefixN), cell(t.snipPass, t.snipN),
				frac(t.headExact, t.headN), frac(t.headNear, t.headN),
				fmt.Sprintf("%.2f", ratio(t.bylineRightGiven, t.bylineGiven)), fmt.Sprintf("%.2f", ratio(t.bylineRight, t.bylineN)),
				frac(t.dateRight, t.dateN)+wrongSuffix(t.dateWrong), frac(t.langRight, t.langN))
			if g == "all" || g == "zh" || g == "ja" || g == "ru" {
				k := strings.ReplaceAll(ex.name, "-", "_") + "_" + g + "_"
				if t.fullN > 0 {
					out[k+"text_f1"] = round3(t.fullF1 / float64(t.fullN))
				}
				out[k+"headline_near"] = round3(ratio(t.headNear, t.headN))
				out[k+"byline_recall"] = round3(ratio(t.bylineRight, t.bylineN))
				out[k+"date"] = round3(ratio(t.dateRight, t.dateN))
				out[k+"lang"] = round3(ratio(t.langRight, t.langN))
			}
		}
	}
	fmt.Printf("  date: right/labelled (w: a wrong day given); our CPU %.0f µs a page (Parse + PageText + Meta, %d passes)\n", float64(cpuPage.Nanoseconds())/1e3, *reps)
	return out, nil
}

func wrongSuffix(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" w%d", n)
}

func realwebMisses(p *realwebPage, a realwebAnswer) {
	if p.TextKind == "full" {
		if f := bagF1(p.Text, a.Text); f < 0.8 {
			fmt.Printf("  miss %s text F1 %.3f (got %d chars, label %d)\n", p.ID, f, len(a.Text), len(p.Text))
		}
	}
	if p.TextKind == "prefix" {
		if r := bagRecall(p.Text, a.Text); r < 0.8 {
			fmt.Printf("  miss %s prefix recall %.3f (got %d chars)\n", p.ID, r, len(a.Text))
		}
	}
	if p.TextKind == "snippets" {
		if s := snippetScore(p.With, p.Without, a.Text); s < 1 {
			fmt.Printf("  miss %s snippets %.2f\n", p.ID, s)
		}
	}
	if p.Title != "" && !nearHeadline(a.Headline, p.Title) {
		fmt.Printf("  miss %s headline %q, label %q\n", p.ID, a.Headline, p.Title)
	}
	if len(p.Authors) > 0 && !sameByline(a.Authors, p.Authors) {
		fmt.Printf("  miss %s byline %q, label %q\n", p.ID, a.Authors, p.Authors)
	}
	if p.Date != "" && a.Day != p.Date {
		fmt.Printf("  miss %s date %q, label %q\n", p.ID, a.Day, p.Date)
	}
	if primaryLang(a.Lang) != p.Lang {
		fmt.Printf("  miss %s lang %q, label %q\n", p.ID, a.Lang, p.Lang)
	}
}

// parseURLOrNil is the page's address for the baselines, nil when unknown.
func parseURLOrNil(s string) *url.URL {
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil
	}
	return u
}
