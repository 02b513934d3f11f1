// Package blockpage decides whether an answer from a site is an anti-bot refusal —
// a block page, a challenge, a captcha, a redirect to a visitor system — on every
// route of the crawl (M3: "when a request is refused (403/429/ban page) ... rotate").
// The direct route and each egress ask the same Judge, so an answer gets one verdict
// whether or not egresses are configured.
//
// Evidence comes in two strengths. Hard evidence acts at once: a vendor's block
// header (cf-mitigated: challenge, x-amzn-waf-action), a challenge cookie
// (__ac_nonce, acw_sc__v2), a vendor status carrying the vendor's markers (AWS WAF
// 405, Jiasule 521, Bilibili 412), a redirect to a vendor's challenge or visitor
// host, and the statuses M3 names (403, 429). Soft evidence — a challenge
// keyword, a captcha widget, a script that sets a cookie and reloads, a body far
// smaller than the host's usual pages — is weighed against what an ordinary page
// has (main text, links, a login form, the host's usual template) and, when it
// still looks like a block, only asks for confirmation: the engine fetches the URL
// once more, and a true block repeats.
//
// The vendor table (signatures.json, embedded) cites the public source of every
// signal; wafw00f's plugins are the main one.
package blockpage

import (
	"bytes"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/crawlconsole/crawlconsole/engine/page"
)

// Strength is how sure a verdict is that the answer refuses the crawler.
type Strength uint8

// Strengths.
const (
	None Strength = iota // an ordinary answer
	Soft                 // looks like a block: confirm (refetch once) before punishing
	Hard                 // a refusal: punish now
)

// String names the strength for logs.
func (s Strength) String() string {
	switch s {
	case None:
		return "none"
	case Soft:
		return "soft"
	case Hard:
		return "hard"
	}
	return "strength(" + strconv.Itoa(int(s)) + ")"
}

// Answer is what the judge reads of one response.
type Answer struct {
	URL     string      // the URL that answered (after same-host redirects)
	Host    string      // the task's host (host history)
	Status  int         // HTTP status
	Header  http.Header // response headers
	Body    []byte      // the body or a prefix of it; only scanMax bytes are read
	BodyLen int64       // full body length, -1 when unknown
	Links   int         // links found on the page, -1 when unknown (counted here)
	// Text is the page's main text from the fetcher's parse (page.Parsed.PageText),
	// so that a page is tokenized once; nil: the judge extracts it from Body.
	Text func() (string, bool)
}

// Verdict is the judge's answer: how strong the refusal is, whose, and why.
type Verdict struct {
	Strength Strength
	Vendor   string   // the vendor's label, "" when none was recognised
	Evidence []string // what was seen, most telling first
	// Unavailable: a 503 with Retry-After and nothing else, an overloaded server
	// rather than a block; it rotates but counts as a server error.
	Unavailable bool
}

// Refusal reports whether the verdict is a refusal (hard, or soft to be confirmed).
func (v Verdict) Refusal() bool { return v.Strength != None }

// String is the verdict as the log and `show URL` print it:
// "AWS WAF: header x-amzn-waf-action: captcha; status 405 + marker \"awswaf\"".
func (v Verdict) String() string {
	ev := strings.Join(v.Evidence, "; ")
	if v.Vendor == "" {
		return ev
	}
	if ev == "" {
		return v.Vendor
	}
	return v.Vendor + ": " + ev
}

// Bounds on what one answer may cost the judge, whatever its size or shape.
const (
	// scanMax: markers are looked for in the first 8 KiB; block pages say so at the
	// top (the largest answer of the corpus is under 2 KiB), and a 10 MB body costs
	// no more than an 8 KiB one: the pass runs on every page fetched.
	scanMax = 8 << 10
	// longPage: a keyword below the title of a page longer than this is an article's
	// word, not a block page's.
	longPage = 32 << 10
	// maxCookies: Set-Cookie lines looked at (a header flood is not read to the end).
	maxCookies = 64
	// textScan: main text is extracted from at most this much of the body.
	textScan = 256 << 10
)

// Weighing thresholds for soft evidence (in runes of main text and in links): a
// block page says one or two sentences and links nowhere; an ordinary page of the
// site has its template's links and a paragraph or more of text.
const (
	shortText = 200 // runes of main text below which a page says almost nothing
	fewLinks  = 3   // links at or below which a page leads nowhere
)

// scannedStatus: statuses whose body may be a block page. 2xx, 503 and the
// statuses vendors block with that are no ordinary answer to a GET (405 AWS WAF
// captcha, 412 Bilibili, 418 Douban, 428 Akamai, 444 btwaf, 521 Jiasule); never 404,
// 410 or 500, whose pages mention "captcha" no more than any other.
func scannedStatus(s int) bool {
	switch s {
	case 405, 406, 412, 418, 428, 444, 503, 521:
		return true
	}
	return s >= 200 && s < 300
}

// Judge gives the verdict on one answer. hosts, when not nil, holds the usual
// template of the answer's host (sizes and links of its ordinary pages); Judge only
// reads it (Hosts.Learn records ordinary pages).
func Judge(a Answer, hosts *Hosts) Verdict {
	body := a.Body
	if len(body) > scanMax {
		body = body[:scanMax]
	}
	var lower []byte
	var hits []pattern
	if bodyCanTell(a) {
		buf := lowerBufs.Get().(*[]byte)
		lower = appendLower((*buf)[:0], body)
		defer func() { *buf = lower[:0]; lowerBufs.Put(buf) }()
		if a.Status != http.StatusNotModified {
			hits = bodyMatcher.find(lower)
		}
	}
	var p answerText // main text and links, computed on first need
	p.a, p.lower = &a, lower

	if v, ok := vendorVerdict(a, hits, &p); ok {
		return v
	}
	switch s := a.Status; {
	case s == http.StatusForbidden, s == http.StatusTooManyRequests:
		return Verdict{Strength: Hard, Vendor: presentVendor(a), Evidence: []string{"status " + strconv.Itoa(s)}}
	case s == http.StatusServiceUnavailable && a.Header.Get("Retry-After") != "":
		return Verdict{Strength: Hard, Vendor: presentVendor(a), Evidence: []string{"status 503 with Retry-After"}, Unavailable: true}
	case s >= 300 && s < 400:
		return redirectVerdict(a)
	}
	if !scannedStatus(a.Status) {
		return Verdict{}
	}
	return softVerdict(a, hits, &p, hosts)
}

// bodyCanTell reports whether the body can change the verdict. On a 200 every piece
// of body evidence, a vendor's marker (vendorVerdict) as much as a keyword or a
// challenge script (softVerdict), counts only on a page that leads almost nowhere
// (answerText.blank); a 200 whose fetcher counted more than fewLinks links is judged on
// its headers and location alone, and the marker pass, the most common cost of a
// crawl's judge, is skipped.
func bodyCanTell(a Answer) bool {
	return a.Status != http.StatusOK || a.Links <= fewLinks
}

// vendorVerdict looks for a vendor's hard evidence: a block header, a challenge
// cookie, a redirect to (or a page from) its challenge location, its markers on a
// status it blocks with or on a page that says nothing else, or its presence on a
// non-200/503 status it blocks with.
func vendorVerdict(a Answer, hits []pattern, p *answerText) (Verdict, bool) {
	markers := map[int][]string{}
	for _, h := range hits {
		if h.vendor >= 0 {
			markers[h.vendor] = append(markers[h.vendor], h.text)
		}
	}
	cookies := setCookieNames(a.Header)
	loc := ""
	if a.Status >= 300 && a.Status < 400 {
		loc = strings.ToLower(a.Header.Get("Location"))
	}
	final := strings.ToLower(stripScheme(a.URL))
	for i := range vendors {
		sig := &vendors[i] // not a copy of the whole signature a vendor
		var ev []string
		for _, bh := range blockHeaders[i] {
			if hv := keyValue(a.Header, bh.key); hv != "" && (bh.val == "" || strings.Contains(strings.ToLower(hv), bh.val)) {
				ev = append(ev, "header "+bh.name+": "+clip(hv, 40))
			}
		}
		for _, c := range sig.ChallengeCookies {
			if n := cookieWithPrefix(cookies, c); n != "" {
				ev = append(ev, "challenge cookie "+clip(n, 40))
			}
		}
		for _, l := range sig.Locations {
			if loc != "" && strings.Contains(loc, l) {
				ev = append(ev, "redirect to "+clip(loc, 80))
				break
			}
			if final != "" && strings.Contains(final, l) {
				ev = append(ev, "answered from "+clip(final, 80))
				break
			}
		}
		statusHit := containsInt(sig.Statuses, a.Status)
		if mk := markers[i]; len(mk) > 0 && len(ev) == 0 {
			switch {
			case statusHit && a.Status != http.StatusOK:
				ev = append(ev, "status "+strconv.Itoa(a.Status)+" + marker "+strconv.Quote(mk[0]))
			case scannedStatus(a.Status) && p.blank():
				ev = append(ev, "marker "+strconv.Quote(mk[0])+" on a page with "+p.describe())
			case a.Status == http.StatusForbidden || a.Status == http.StatusTooManyRequests:
				ev = append(ev, "status "+strconv.Itoa(a.Status)+" + marker "+strconv.Quote(mk[0]))
			}
		}
		if len(ev) == 0 && statusHit && a.Status != http.StatusOK && a.Status != http.StatusServiceUnavailable && a.Status/100 != 3 {
			if why := presence(sig, a.Header, cookies); why != "" {
				ev = append(ev, "status "+strconv.Itoa(a.Status)+" with "+why)
			}
		}
		if len(ev) > 0 {
			return Verdict{Strength: Hard, Vendor: sig.Label, Evidence: ev}, true
		}
	}
	return Verdict{}, false
}

// redirectVerdict: a cross-host redirect whose path names a challenge is soft
// evidence (vendor locations were hard evidence above); anything else is a redirect.
func redirectVerdict(a Answer) Verdict {
	loc := a.Header.Get("Location")
	if loc == "" || a.Status == http.StatusNotModified {
		return Verdict{}
	}
	to, err := url.Parse(loc)
	if err != nil || to.Host == "" {
		return Verdict{}
	}
	if from, err := url.Parse(a.URL); err == nil && strings.EqualFold(from.Hostname(), to.Hostname()) {
		return Verdict{}
	}
	path := strings.ToLower(to.Path)
	for _, w := range []string{"captcha", "challenge", "antispider", "/sorry/"} {
		if strings.Contains(path, w) {
			return Verdict{Strength: Soft, Evidence: []string{"cross-host redirect to " + clip(strings.ToLower(loc), 80)}}
		}
	}
	return Verdict{}
}

// softVerdict weighs soft evidence against what an ordinary page has. A keyword or
// widget alone never makes a refusal: the page must also say almost nothing, lead
// almost nowhere, hold no login form, and (when the host's template is known) fall
// far below it.
func softVerdict(a Answer, hits []pattern, p *answerText, hosts *Hosts) Verdict {
	var ev []string
	title := titleOf(p.lower)
	long := a.BodyLen > longPage || len(a.Body) > longPage
	for _, h := range hits {
		if h.vendor >= 0 {
			continue
		}
		switch {
		case title != nil && bytes.Contains(title, []byte(h.text)):
			ev = append(ev, "keyword "+strconv.Quote(h.text)+" in title")
		case !long:
			ev = append(ev, "keyword "+strconv.Quote(h.text))
		}
		if len(ev) >= 3 {
			break
		}
	}
	if len(ev) == 0 && challengeScript(p.lower) {
		ev = append(ev, "script-only page that sets a cookie and reloads")
	}
	if len(ev) == 0 {
		return Verdict{}
	}
	if bytes.Contains(p.lower, []byte(`type="password"`)) || bytes.Contains(p.lower, []byte(`type=password`)) || bytes.Contains(p.lower, []byte(`type='password'`)) {
		return Verdict{} // a login form, captcha field or not
	}
	if !p.blank() {
		return Verdict{}
	}
	ev = append(ev, p.describe())
	if hosts != nil {
		if t, ok := hosts.usual(a.Host); ok {
			size := a.BodyLen
			if size < 0 {
				size = int64(len(a.Body))
			}
			if float64(p.links()) >= t.links/2 && t.links > fewLinks {
				return Verdict{} // the host's own template: a short page of the site
			}
			ev = append(ev, "host's pages usually "+strconv.Itoa(int(t.size))+" B with "+strconv.Itoa(int(t.links))+" links, this "+strconv.FormatInt(size, 10)+" B")
		}
	}
	return Verdict{Strength: Soft, Vendor: presentVendor(a), Evidence: ev}
}

// answerText computes, once, what an ordinary page has: main text and links.
type answerText struct {
	a       *Answer
	lower   []byte
	done    bool
	text    int // runes of main text
	nlinks  int
	counted bool
}

func (p *answerText) compute() {
	if p.done {
		return
	}
	p.done = true
	var t string
	var ok bool
	if p.a.Text != nil {
		t, ok = p.a.Text()
	} else {
		body := p.a.Body
		if len(body) > textScan {
			body = body[:textScan]
		}
		t, ok = page.PageText(body, p.a.Header.Get("Content-Type"))
	}
	if ok {
		p.text = utf8.RuneCountInString(strings.Join(strings.Fields(t), " "))
	}
}

func (p *answerText) links() int {
	if p.a.Links >= 0 {
		return p.a.Links
	}
	if !p.counted {
		p.counted = true
		p.nlinks = bytes.Count(p.lower, []byte("<a ")) + bytes.Count(p.lower, []byte("<a\n"))
	}
	return p.nlinks
}

// blank: says almost nothing and leads almost nowhere, as block pages do.
func (p *answerText) blank() bool {
	if p.links() > fewLinks {
		return false
	}
	p.compute()
	return p.text < shortText
}

func (p *answerText) describe() string {
	p.compute()
	return "main text " + strconv.Itoa(p.text) + " chars, " + strconv.Itoa(p.links()) + " links"
}

// challengeScript: a page whose scripts set a cookie and reload or redirect, the
// shape of JS challenges (Jiasule, Aliyun acw_sc, ByteDance __ac) with no vendor
// marker in sight. A single-page app's shell loads scripts but does neither.
func challengeScript(lower []byte) bool {
	if !bytes.Contains(lower, []byte("<script")) || !bytes.Contains(lower, []byte("document.cookie")) {
		return false
	}
	for _, r := range []string{"location.reload", "location.href", "location.replace", "location=", "location ="} {
		if bytes.Contains(lower, []byte(r)) {
			return true
		}
	}
	return false
}

// presentVendor names the vendor whose presence signals the answer carries, "" if
// none: it labels a generic verdict (a 403 behind Cloudflare). It is asked only when
// there is a verdict to label: on an ordinary page it was half the judge's time.
func presentVendor(a Answer) string {
	cookies := setCookieNames(a.Header)
	for i := range vendors {
		if presence(&vendors[i], a.Header, cookies) != "" {
			return vendors[i].Label
		}
	}
	return ""
}

// presence says which presence signal of sig the answer carries, "" if none.
func presence(sig *Signature, h http.Header, cookies []string) string {
	for name, val := range sig.PresenceHeaders {
		if strings.HasSuffix(name, "-") { // a header family: x-px-*
			for k := range h {
				if strings.HasPrefix(strings.ToLower(k), name) {
					return "header " + strings.ToLower(k)
				}
			}
			continue
		}
		if hv := headerValue(h, name); hv != "" && (val == "" || strings.Contains(strings.ToLower(hv), val)) {
			return "header " + name + ": " + clip(hv, 40)
		}
	}
	for _, c := range sig.PresenceCookies {
		if n := cookieWithPrefix(cookies, c); n != "" {
			return "cookie " + clip(n, 40)
		}
	}
	return ""
}

// headerValue is the first value of a header, "" when absent; a flood of values
// costs one lookup.
func headerValue(h http.Header, name string) string {
	if h == nil {
		return ""
	}
	return h.Get(name)
}

// keyValue is headerValue for a name already in net/http's canonical form.
func keyValue(h http.Header, key string) string {
	if vs := h[key]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// setCookieNames returns the (lower-case) names of the first maxCookies cookies set.
func setCookieNames(h http.Header) []string {
	if h == nil {
		return nil
	}
	lines := h["Set-Cookie"] // canonical: no Values, which canonicalizes it on every answer
	if len(lines) > maxCookies {
		lines = lines[:maxCookies]
	}
	names := make([]string, 0, len(lines))
	for _, l := range lines {
		if i := strings.IndexByte(l, '='); i > 0 && i < 256 {
			names = append(names, strings.ToLower(strings.TrimSpace(l[:i])))
		}
	}
	return names
}

func cookieWithPrefix(names []string, prefix string) string {
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			return n
		}
	}
	return ""
}

// titleOf returns the text between <title> and </title> of a lower-cased body.
func titleOf(lower []byte) []byte {
	i := bytes.Index(lower, []byte("<title"))
	if i < 0 {
		return nil
	}
	j := bytes.IndexByte(lower[i:], '>')
	if j < 0 {
		return nil
	}
	start := i + j + 1
	end := bytes.Index(lower[start:], []byte("</title"))
	if end < 0 {
		return nil
	}
	return lower[start : start+end]
}

func stripScheme(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		return u[i+3:]
	}
	return u
}

func containsInt(l []int, x int) bool {
	for _, v := range l {
		if v == x {
			return true
		}
	}
	return false
}

// clip shortens s to n bytes on a rune boundary for evidence strings.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
