package meta

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/crawlconsole/crawlconsole/engine/page/internal/textutil"
)

// The headline and the authors: what the page's structured data says, checked
// against what it shows.

// maxAuthors bounds the authors kept for one page.
const maxAuthors = 10

// headline is the article's headline: the first visible <h1> when the page's title
// (or og:title, or JSON-LD headline) confirms it, else JSON-LD headline, og:title,
// the other <meta> titles, and last the <title> less the site's name.
func (m *Raw) headline(ld ldFacts) Field {
	title := m.metaTitle()
	og, ogKey := m.metaValue(headlineKeys[:len(headlineKeys)-1], nil)
	if m.h1 != "" {
		for _, ref := range []string{title, og, ld.headline} {
			if ref != "" && sameHeadline(m.h1, ref) {
				// A line of the <h1> that no title has is not the headline's: Nikkei's
				// <h1> puts the byline ("編集委員　中沢克二") after a <br>.
				if first, rest := m.h1Lines[0], m.h1Lines[1]; first != "" && sameHeadline(first, ref) && titleCover(ref, rest) == 0 {
					return Field{first, "h1"}
				}
				return Field{m.h1, "h1"}
			}
		}
	}
	switch {
	case ld.headline != "":
		return Field{ld.headline, "json-ld headline"}
	case og != "":
		return Field{textutil.ClipBytes(textutil.CollapseSpace(stripSiteName(og, m.siteName())), 512), Source("meta " + ogKey)}
	}
	for _, e := range m.elems {
		if e.prop == "headline" && e.text != "" {
			return Field{e.text, "microdata headline"}
		}
	}
	if title != "" {
		return Field{textutil.ClipBytes(stripSiteName(title, m.siteName()), 512), "title"}
	}
	if m.h1 != "" {
		return Field{m.h1, "h1"}
	}
	return Field{}
}

// metaTitle is the document's <title> as the parse kept it (the <meta name=title>
// when the page has none).
func (m *Raw) metaTitle() string {
	if m.title != "" {
		return m.title
	}
	v, _ := m.metaValue([]string{"title"}, nil)
	return textutil.CollapseSpace(v)
}

// siteName is the site's own name, when the page says it (og:site_name).
func (m *Raw) siteName() string {
	v, _ := m.metaValue([]string{"og:site_name", "application-name"}, nil)
	return v
}

// sameHeadline reports whether two titles name the same article: most words of
// the shorter appear in the longer (a title adds the site's name, a headline on the
// page may drop a kicker).
func sameHeadline(a, b string) bool {
	var bufA, bufB [64]string // the words, on the stack for most titles
	wa, wb := appendTitleWords(bufA[:0], a), appendTitleWords(bufB[:0], b)
	if len(wa) == 0 || len(wb) == 0 {
		return false
	}
	if len(wa) > len(wb) {
		wa, wb = wb, wa
	}
	hit := 0 // (at most 64 words a side: a scan costs less than a map)
	for _, w := range wa {
		if slices.Contains(wb, w) {
			hit++
		}
	}
	return hit*10 >= len(wa)*7
}

// titleWords are a title's words, lower case; an unspaced script counts by character.
func titleWords(s string) []string { return appendTitleWords(nil, s) }

// appendTitleWords appends titleWords(s) to out: the fields of the lower-cased title
// between runes that are neither letters nor digits (strings.FieldsFunc's), at most
// 64 fields read. Runes of the Basic Multilingual Plane are classed by letterTable.
func appendTitleWords(out []string, s string) []string {
	table := letterTable()
	s = toLower(s, table) // valid UTF-8 from here: ToLower wrote U+FFFD for any invalid byte
	start := len(out)
	field := -1 // where the field being read starts
	for i, r := range s {
		var word bool
		switch {
		case r < utf8.RuneSelf:
			c := byte(r) | 0x20
			word = 'a' <= c && c <= 'z' || '0' <= r && r <= '9'
		case r < 0x10000:
			word = table[r]&(scriptBits|digitRune) != 0
		default:
			word = unicode.IsLetter(r) || unicode.IsDigit(r)
		}
		if word {
			if field < 0 {
				field = i
			}
			continue
		}
		if field >= 0 {
			if len(out)-start >= 64 {
				return out
			}
			out = appendTitleField(out, s[field:i], table)
			field = -1
		}
	}
	if field >= 0 && len(out)-start < 64 {
		out = appendTitleField(out, s[field:], table)
	}
	return out
}

// appendTitleField appends a field of a title: the field, or each of its characters
// when it holds an unspaced script's. table is letterTable().
func appendTitleField(out []string, f string, table *[0x10000]uint8) []string {
	for _, r := range f {
		if r < utf8.RuneSelf {
			continue
		}
		if r < 0x10000 && table[r]&unspacedRune != 0 || r >= 0x10000 && textutil.UnspacedScript(r) {
			// f is valid UTF-8: each character is a slice of it, not a string of its own.
			for i, c := range f {
				out = append(out, f[i:i+utf8.RuneLen(c)])
			}
			return out
		}
	}
	return append(out, f)
}

// toLower is strings.ToLower(s), the runes of the Basic Multilingual Plane that it
// leaves as they are known from table (letterTable) without unicode.ToLower's walk.
func toLower(s string, table *[0x10000]uint8) string {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				return lowerFrom(s, i, table)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || r >= 0x10000 || table[r]&changesLower != 0 {
			return lowerFrom(s, i, table)
		}
		i += n
	}
	return s
}

// lowerFrom is toLower(s) when s[:i] is as strings.ToLower writes it.
func lowerFrom(s string, i int, table *[0x10000]uint8) string {
	b := make([]byte, i, len(s)+utf8.UTFMax)
	copy(b, s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = utf8.AppendRune(b, utf8.RuneError) // an invalid byte
		case r < 0x10000 && table[r]&changesLower == 0:
			b = append(b, s[i:i+n]...)
		default:
			b = utf8.AppendRune(b, unicode.ToLower(r))
		}
		i += n
	}
	// b is not written again: the string shares it instead of copying it.
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// titleSeps split a <title> into the headline and the site's name.
var titleSeps = []string{" | ", " - ", " – ", " — ", " :: ", " · ", " • ", " « ", " » ", " / "}

// stripSiteName drops the site's name from a title: the part naming site (when
// known), else the shorter parts around a separator, keeping the longest.
func stripSiteName(title, site string) string {
	title = textutil.CollapseSpace(title)
	for _, sep := range titleSeps {
		parts := strings.Split(title, sep)
		if len(parts) < 2 {
			continue
		}
		if site != "" {
			var keep []string
			for _, p := range parts {
				if !strings.EqualFold(strings.TrimSpace(p), strings.TrimSpace(site)) {
					keep = append(keep, p)
				}
			}
			if len(keep) > 0 && len(keep) < len(parts) {
				return strings.TrimSpace(strings.Join(keep, sep))
			}
		}
		best := ""
		for _, p := range parts {
			if len(p) > len(best) {
				best = p
			}
		}
		if len(titleWords(best)) >= 3 {
			return strings.TrimSpace(best)
		}
	}
	return title
}

// authors are the article's authors: JSON-LD, else the <meta> author tags, else
// microdata, else rel=author links, else the page's byline.
func (m *Raw) authors(ld ldFacts) ([]string, Source) {
	site := m.siteName()
	clean := func(vals []string) []string { return cleanAuthors(vals, site) }
	// The site's own name as the JSON-LD author (a CMS default) is kept only
	// when nothing else on the page names an author.
	var siteOnly []string
	if a := clean(ld.authors); len(a) > 0 {
		if !isSiteName(a, site) {
			return m.fullerByline(a, clean), "json-ld author"
		}
		siteOnly = a
	}
	for _, k := range authorKeys {
		for _, p := range m.metas {
			if p.key != k {
				continue
			}
			if a := clean([]string{p.val}); len(a) > 0 {
				return m.fullerByline(a, clean), Source("meta " + k)
			}
		}
	}
	var micro, rel []string
	for _, e := range m.elems {
		switch {
		case e.prop == "author" || e.prop == "creator":
			micro = append(micro, e.text)
		case e.author:
			rel = append(rel, e.text)
		}
	}
	if a := clean(micro); len(a) > 0 {
		return a, "microdata author"
	}
	if a := clean(rel); len(a) > 0 {
		return a, "rel author"
	}
	for _, b := range m.bylines {
		if a := clean([]string{b}); len(a) > 0 && len(a) <= 4 {
			return a, "byline"
		}
	}
	if siteOnly != nil {
		return siteOnly, "json-ld author"
	}
	return nil, ""
}

// fullerByline is the names of the page's byline when it shows every one of
// names and more (structured data naming the first author of three), else names.
func (m *Raw) fullerByline(names []string, clean func([]string) []string) []string {
	for _, b := range m.bylines {
		a := clean([]string{b})
		if len(a) <= len(names) || len(a) > 4 {
			continue
		}
		all := true
		for _, x := range a {
			all = all && personLike(x)
		}
		for _, n := range names {
			all = all && slices.ContainsFunc(a, func(x string) bool { return strings.EqualFold(x, n) })
		}
		if all {
			return a
		}
	}
	return names
}

// personLike reports whether s reads as a person's full name: two words or more,
// each starting with a capital or a name particle, no colon ("Kathryn Watson", not
// "Washington", "Topic: Hardware" or "Special to the Pioneer Press").
func personLike(s string) bool {
	w := strings.Fields(s)
	if len(w) < 2 || strings.Contains(s, ":") {
		return false
	}
	for _, x := range w {
		if r := []rune(x)[0]; !unicode.IsUpper(r) && !nameParticles[strings.ToLower(x)] {
			return false
		}
	}
	return true
}

// isSiteName reports whether names is the site's own name alone (AppleInsider on
// appleinsider.com, Sky on Sky News).
func isSiteName(names []string, site string) bool {
	if len(names) != 1 || site == "" {
		return false
	}
	return strings.EqualFold(names[0], site) || hasWords(site, names[0])
}

// hasWords reports whether s holds the words of w, in order, as whole words (case
// aside).
func hasWords(s, w string) bool {
	sf, wf := strings.Fields(strings.ToLower(s)), strings.Fields(strings.ToLower(w))
	for i := 0; len(wf) > 0 && i+len(wf) <= len(sf); i++ {
		if slices.Equal(sf[i:i+len(wf)], wf) {
			return true
		}
	}
	return false
}

// bylinePrefixes are the words a byline starts with, lower case (a full-width
// colon or slash is read as its ASCII form first).
var bylinePrefixes = []string{"written by", "posted by", "by", "von", "par", "por", "di", "door", "av", "autor:",
	"author:", "authors:", "auteur :", "auteur:", "text:", "texte:", "redacción:", "от",
	"автор:", "авторы:", "автор", "текст:",
	"作者:", "作者", "撰文:", "撰稿:", "文/", "文:", "本报记者", "新华社记者", "记者:", "记者", "記者:", "記者", "筆者:", "執筆:", "기자:"}

// bylineLabels are the labels of a Chinese or Japanese byline that name its
// author among other credits ("来源：新华社 作者：李明 责任编辑：王芳").
var bylineLabels = []string{"作者:", "记者:", "記者:", "撰文:", "执笔:", "執筆:", "文/"}

// labelledAuthor is the name after an author's label inside a line of credits,
// to the next space (Chinese names have none); else v.
func labelledAuthor(v string) string {
	for _, l := range bylineLabels {
		i := strings.Index(v, l)
		if i < 0 {
			continue
		}
		rest := strings.TrimSpace(v[i+len(l):])
		if r, _ := utf8.DecodeRuneInString(rest); !textutil.UnspacedScript(r) {
			continue
		}
		if j := strings.IndexByte(rest, ' '); j > 0 {
			rest = rest[:j]
		}
		return rest
	}
	return v
}

// fullWidth are the full-width forms a CJK byline writes, and their ASCII.
var fullWidth = strings.NewReplacer("：", ":", "／", "/", "（", "(", "）", ")", "\u3000", " ")

// authorSeps split a list of authors.
var authorSeps = []string{",", ";", "|", " and ", " & ", " und ", " et ", " y ", " e ", " en ", " и ", "、", "/"}

// cleanAuthors makes names of author values: a byline's "By" dropped, lists split,
// URLs, e-mail addresses, dates and sentences dropped, each name once. What a
// byline writes after a name is not a name: a title ("AP Auto Writer", "CNN
// Editor-at-large"), a degree ("MS, RD"), the outlet (site, the site's name, a
// domain, an agency after the last name, one word after a full name: "Victor
// Tangermann, Futurism"); nor is a URL slug ("kevin-r") or a phrase in lower case.
func cleanAuthors(vals []string, site string) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range vals {
		v = labelledAuthor(textutil.CollapseSpace(fullWidth.Replace(v)))
		if strings.Contains(v, "://") || strings.HasPrefix(v, "@") || strings.HasPrefix(v, "www.") {
			continue
		}
		parts := []string{v}
		for _, sep := range authorSeps {
			var next []string
			for _, p := range parts {
				next = append(next, strings.Split(p, sep)...)
			}
			parts = next
		}
		full := false // a name of two words or more came before in this value
		for _, p := range parts {
			p = strings.TrimSpace(p)
			if lp := strings.ToLower(p); strings.Count(lp, " ") >= 1 {
				if w := strings.Fields(lp); len(w) >= 3 && w[1] == "by" {
					p = strings.Join(strings.Fields(p)[2:], " ") // "Analysis by Chris Cillizza"
				}
			}
			for w := strings.Fields(p); len(w) > 2 && (weekdays[strings.ToLower(w[len(w)-1])] || monthWords[strings.ToLower(strings.TrimSuffix(w[len(w)-1], "."))] > 0 && len(w[len(w)-1]) > 2); w = w[:len(w)-1] {
				p = strings.Join(w[:len(w)-1], " ") // "Jeff Foust Monday, November 18", "Chris Davies - Nov 19"
			}
			p = strings.TrimRight(p, " -–—|")
			for _, agency := range agencies {
				if rest, ok := strings.CutSuffix(p, " "+agency); ok && strings.Contains(strings.TrimSpace(rest), " ") {
					p = rest // "ERIC TUCKER Associated Press"
				}
			}
			p = strings.TrimSpace(strings.Trim(p, "()")) // "（記者 田中一郎）"
			for again := true; again; {
				again = false
				lp := strings.ToLower(p)
				for _, pre := range bylinePrefixes {
					if strings.HasPrefix(lp, pre+" ") || glued(pre) && strings.HasPrefix(lp, pre) && len(lp) > len(pre) {
						p = strings.TrimSpace(p[len(pre):])
						again = true
						break
					}
				}
			}
			p = strings.Trim(p, " .:-–—·()")
			if !plausibleName(p) || seen[strings.ToLower(p)] || notAName(p, site, full) {
				continue
			}
			full = full || strings.Contains(p, " ")
			seen[strings.ToLower(p)] = true
			out = append(out, p)
			if len(out) >= maxAuthors {
				return out
			}
		}
	}
	return out
}

// glued reports a byline prefix the name may follow without a space: one ending in
// a colon or slash, or in Chinese or Japanese ("記者山田太郎").
func glued(pre string) bool {
	r, _ := utf8.DecodeLastRuneInString(pre)
	return r == ':' || r == '/' || textutil.UnspacedScript(r)
}

// weekdays end a byline whose date follows the name.
var weekdays = map[string]bool{"monday": true, "tuesday": true, "wednesday": true, "thursday": true,
	"friday": true, "saturday": true, "sunday": true}

// agencies are news agencies a byline writes after its last name.
var agencies = []string{"Associated Press", "Reuters", "AFP", "AP", "dpa", "PTI", "ANI", "IANS"}

// roleWords end a staff title ("AP National Political Writer", "Staff Writer").
var roleWords = map[string]bool{"writer": true, "reporter": true, "correspondent": true, "editor": true,
	"columnist": true, "contributor": true, "editor-at-large": true, "producer": true, "journalist": true}

// degrees are the letters after a name ("Rachael Link, MS, RD").
var degrees = map[string]bool{"ms": true, "rd": true, "rdn": true, "phd": true, "md": true, "mba": true,
	"ma": true, "msc": true, "bsc": true, "rn": true, "cpa": true, "jd": true, "dr": true}

// nameParticles may start a name in lower case ("van der Merwe").
var nameParticles = map[string]bool{"van": true, "von": true, "de": true, "da": true, "di": true, "du": true,
	"le": true, "la": true, "al": true, "el": true, "bin": true, "ibn": true, "ten": true, "ter": true}

// notAName reports whether one part of an author list is a title, a degree, an
// outlet, a slug or a phrase rather than a name; full says a full name came before
// it in the same list.
func notAName(p, site string, full bool) bool {
	w := strings.Fields(p)
	lw := strings.ToLower(w[len(w)-1])
	switch {
	case roleWords[lw] && len(w) > 1 || degrees[strings.ToLower(strings.ReplaceAll(p, ".", ""))]:
		return true
	case !strings.Contains(p, " ") && (strings.ContainsAny(p, "-_") && p == strings.ToLower(p)):
		return true // a URL slug: kevin-r
	case len(w) > 1 && unicode.IsLower([]rune(p)[0]) && !nameParticles[strings.ToLower(w[0])]:
		return true // "exclusive discounts", a sentence's piece
	case !full:
		return false
	case len(w) == 1, strings.Contains(p, ".") && !strings.Contains(p, " "):
		return true // "Futurism", "Cleveland.com" after a full name
	case site != "" && (strings.EqualFold(p, site) || hasWords(p, site)):
		return true // "Business Insider", "CNN Business" on CNN
	}
	return false
}

// plausibleName reports whether s can be a person's (or a desk's) name: letters,
// at most six words, no digits, not an e-mail address.
func plausibleName(s string) bool {
	if s == "" || len(s) > 80 || strings.ContainsAny(s, "@0123456789") {
		return false
	}
	if n := len(strings.Fields(s)); n > 6 {
		return false
	}
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}
