package render

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/render/learned"
)

// Mode is a site's render setting: always, never, or auto (render the pages that
// look built by script, learning per host and path which need it).
type Mode string

// The render modes.
const (
	Auto   Mode = "auto"
	Always Mode = "always"
	Never  Mode = "never"
)

// ParseMode reads a render mode; the empty string is Auto.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return Auto, nil
	case Auto, Always, Never:
		return m, nil
	}
	return "", fmt.Errorf("render: %q is not a render mode; use always, never or auto", s)
}

// Features are what a page shows of its content, plainly or rendered.
type Features struct {
	Links int // links in the page
	Text  int // bytes of main text (headline and paragraphs)
	// Shell says the HTML looks like a script-built shell: an empty root element
	// (#root, #app, #__next...), a JSON state blob or a <noscript> notice, with
	// a script.
	Shell bool
}

// Few links and little text: what a page built by script shows before its script ran.
const (
	fewLinks  = 10
	shortText = 300
)

// PageFeatures reads a fetched page's features from its one parse.
func PageFeatures(res *fetch.Result) Features {
	f := Features{Links: len(res.Links), Shell: scriptShell(res.Body)}
	if res.Parsed != nil {
		if n, ok := res.Parsed.PageTextLen(); ok {
			f.Text = n
		}
	} else if t, ok := page.ParseTextOnly(res.Body, res.Header.Get("Content-Type")).PageText(); ok {
		f.Text = len(t)
	}
	return f
}

// DOMFeatures reads a rendered DOM's features.
func DOMFeatures(dom []byte) Features {
	f := Features{Links: len(page.ScanLinks(dom, "").Links)}
	if t, ok := page.ParseTextOnly(dom, "text/html; charset=utf-8").PageText(); ok {
		f.Text = len(t)
	}
	return f
}

// Candidate says the page may need rendering: a script-built shell with few links
// or little text.
func (f Features) Candidate() bool {
	return f.Shell && (f.Links < fewLinks || f.Text < shortText)
}

var shellMarks = [][]byte{
	[]byte(`id="root"></div>`), []byte(`id="app"></div>`), []byte(`id="__next"></div>`), []byte(`id=root></div>`), []byte(`id=app></div>`),
	[]byte(`__NEXT_DATA__`), []byte(`__INITIAL_STATE__`), []byte(`__NUXT__`), []byte(`__APOLLO_STATE__`),
	[]byte(`type="application/json"`), []byte(`<noscript`),
}

// scriptShell looks for the marks of a script-built page (bounded: the first 256 KiB).
func scriptShell(body []byte) bool {
	head := body[:min(len(body), 256<<10)]
	if !bytes.Contains(head, []byte("<script")) {
		return false
	}
	for _, m := range shellMarks {
		if bytes.Contains(head, m) {
			return true
		}
	}
	return false
}

// Gained says the render showed content the plain fetch did not: more links or
// more text, clearly.
func Gained(plain, rendered Features) bool {
	return (rendered.Links >= plain.Links+3 && rendered.Links*2 >= plain.Links*3) ||
		(rendered.Text >= plain.Text+200 && rendered.Text >= 2*plain.Text)
}

// Decider learns per host and first path segment whether pages need rendering,
// as Crawlee's adaptive crawler does: a candidate page (Features.Candidate) of an
// unknown section is rendered and compared with its plain fetch; the section's
// verdict is kept, and a section judged static is rendered again, to recheck, once
// every RecheckEvery candidates. It is safe for concurrent use.
type Decider struct {
	// ModeFor is a host's configured mode; nil: Auto everywhere.
	ModeFor func(host string) Mode
	// RecheckEvery is the rate at which a static section's candidates are
	// rendered again (default 50: 2%).
	RecheckEvery int

	mu       sync.Mutex
	sections map[string]*verdict
}

type verdict struct {
	known, dynamic bool
	candidates     int
	compared       int
	misses         int // renders in a row that showed nothing more, on a dynamic section
}

// maxSections bounds the decider's memory on a crawl of many hosts.
const maxSections = 50000

// WhyLearning is Need's reason for the render of a page whose section has no
// verdict yet: what it shows decides the section's next pages.
const WhyLearning = "looks built by script; learning"

// Need says whether a fetched page is rendered, and why.
func (d *Decider) Need(host, rawURL string, f Features) (bool, string) {
	m := Auto
	if d.ModeFor != nil {
		m = d.ModeFor(host)
	}
	switch m {
	case Never:
		return false, ""
	case Always:
		return true, "site set to render always"
	}
	if !f.Candidate() {
		return false, ""
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	v := d.section(host, rawURL)
	v.candidates++
	switch {
	case !v.known:
		return true, WhyLearning
	case v.dynamic:
		return true, "section needs rendering"
	case v.candidates%d.every() == 0:
		return true, "recheck of a static section"
	}
	return false, ""
}

func (d *Decider) every() int {
	if d.RecheckEvery > 0 {
		return d.RecheckEvery
	}
	return 50
}

// Learn keeps what a render showed against the plain fetch for the page's section.
func (d *Decider) Learn(host, rawURL string, plain, rendered Features) {
	d.LearnVerdict(host, rawURL, plain, rendered)
}

// LearnVerdict is Learn, returning the section (its Verdicts key) and its verdict
// after it: what a worker sends its master, which keeps it for the crawl's next run.
func (d *Decider) LearnVerdict(host, rawURL string, plain, rendered Features) (section string, dynamic bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	section = sectionKey(host, rawURL)
	v := d.section(host, rawURL)
	v.compared++
	gained := Gained(plain, rendered)
	switch {
	case gained:
		v.known, v.dynamic, v.misses = true, true, 0
	case !v.known || !v.dynamic:
		v.known, v.dynamic = true, false
	default:
		// A dynamic section turns static only after renders that agree: one page
		// whose API call failed must not stop the section's rendering.
		if v.misses++; v.misses >= 3 {
			v.dynamic, v.misses = false, 0
		}
	}
	return section, v.dynamic
}

// Verdict is a section's verdict: known and whether it needs rendering.
func (d *Decider) Verdict(host, rawURL string) (known, dynamic bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	v := d.sections[sectionKey(host, rawURL)]
	if v == nil {
		return false, false
	}
	return v.known, v.dynamic
}

func (d *Decider) section(host, rawURL string) *verdict {
	if d.sections == nil {
		d.sections = map[string]*verdict{}
	}
	k := sectionKey(host, rawURL)
	v := d.sections[k]
	if v == nil {
		if len(d.sections) >= maxSections {
			n := 0
			for k := range d.sections { // forget a tenth, any
				delete(d.sections, k)
				if n++; n >= maxSections/10 {
					break
				}
			}
		}
		v = &verdict{}
		d.sections[k] = v
	}
	return v
}

// sectionKey is the host and the first segment of the path: sites that render
// only some paths (/app/..., /search) keep them apart from the rest.
func sectionKey(host, rawURL string) string {
	p := "/"
	if u, err := url.Parse(rawURL); err == nil {
		p = u.Path
	}
	seg := strings.TrimPrefix(p, "/")
	if i := strings.IndexByte(seg, '/'); i >= 0 {
		seg = seg[:i]
	} else {
		seg = "" // a page at the top level belongs with the home page
	}
	return host + "/" + seg
}

// VerdictsKey is the store meta key the sections' render verdicts are kept under
// across runs (learned.Key).
const VerdictsKey = learned.Key

// Verdicts are the sections' known verdicts, to keep across runs (learned.Verdicts).
type Verdicts = learned.Verdicts

// Verdicts is what the decider learned: every section with a verdict.
func (d *Decider) Verdicts() Verdicts {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(Verdicts, len(d.sections))
	for k, v := range d.sections {
		if v.known {
			out[k] = v.dynamic
		}
	}
	return out
}

// Restore takes the verdicts a past run learned: their sections' pages are
// decided on them at once, without a learning render (a static section is still
// rechecked at its rate). A verdict learned in this run stays.
func (d *Decider) Restore(vs Verdicts) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.sections == nil {
		d.sections = map[string]*verdict{}
	}
	for k, dynamic := range vs {
		if len(d.sections) >= maxSections {
			return
		}
		if _, ok := d.sections[k]; !ok {
			d.sections[k] = &verdict{known: true, dynamic: dynamic}
		}
	}
}
