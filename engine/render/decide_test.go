package render

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/page"
)

func resultOf(u, body string) *fetch.Result {
	links, parsed := page.Read([]byte(body), "text/html", "")
	return &fetch.Result{URL: u, FinalURL: u, Status: 200, ContentType: "text/html", Header: http.Header{"Content-Type": {"text/html"}},
		Body: []byte(body), Links: links.Links, Parsed: parsed}
}

func staticPage() string {
	var b strings.Builder
	b.WriteString("<html><body><noscript>no js</noscript><script>1</script><article><h1>Title</h1>")
	for i := 0; i < 8; i++ {
		b.WriteString("<p>Paragraph " + strconv.Itoa(i) + " of the story says something new each time, with " + strings.Repeat("words ", i+20) + "and an end.</p>")
	}
	for i := 0; i < 20; i++ {
		b.WriteString(`<a href="/x">x</a>`)
	}
	b.WriteString("</article></body></html>")
	return b.String()
}

// A script-built shell is a candidate, an article page is not; a site's mode
// overrides; a bad mode is refused with what to write instead.
func TestDeciderPicksShells(t *testing.T) {
	shell := PageFeatures(resultOf("http://spa.test/", spaShell))
	if !shell.Candidate() {
		t.Fatalf("SPA shell %+v is no candidate", shell)
	}
	if f := PageFeatures(resultOf("http://news.test/a/1", staticPage())); f.Candidate() {
		t.Fatalf("article page %+v is a candidate", f)
	}
	d := &Decider{ModeFor: func(h string) Mode {
		if h == "never.test" {
			return Never
		}
		return Always
	}}
	if need, _ := d.Need("never.test", "http://never.test/", shell); need {
		t.Error("render: never rendered a page")
	}
	if need, _ := d.Need("always.test", "http://always.test/", Features{Links: 100, Text: 5000}); !need {
		t.Error("render: always did not render a plain page")
	}
	if _, err := ParseMode("sometimes"); err == nil || !strings.Contains(err.Error(), "always, never or auto") {
		t.Errorf("ParseMode(sometimes) = %v", err)
	}
}

// A section whose render gains nothing is left alone but for rechecks; a section
// whose render gains is rendered; sections of one host are apart.
func TestDeciderLearnsPerSection(t *testing.T) {
	d := &Decider{RecheckEvery: 10}
	shell := Features{Links: 2, Text: 0, Shell: true}
	need, _ := d.Need("mixed.test", "http://mixed.test/app/1", shell)
	if !need {
		t.Fatal("unknown section's candidate not rendered")
	}
	d.Learn("mixed.test", "http://mixed.test/app/1", shell, Features{Links: 30, Text: 2000})
	d.Learn("mixed.test", "http://mixed.test/news/1", shell, Features{Links: 3, Text: 40})
	rendered, static := 0, 0
	for i := 0; i < 100; i++ {
		if n, _ := d.Need("mixed.test", "http://mixed.test/app/2", shell); n {
			rendered++
		}
		if n, _ := d.Need("mixed.test", "http://mixed.test/news/2", shell); n {
			static++
		}
	}
	if rendered != 100 || static != 10 {
		t.Errorf("dynamic section rendered %d/100, static section %d/100; want 100 and 10 (the rechecks)", rendered, static)
	}
}

// Weighing a fetched page for rendering reads the length of its main text from the
// fetcher's parse without copying the text: a crawl weighs every HTML page it fetches.
// The length is the one the text itself has.
func TestPageFeaturesWeighTextWithoutCopyingIt(t *testing.T) {
	res := resultOf("http://news.test/a/1", staticPage())
	text, ok := page.PageText(res.Body, "text/html")
	if !ok {
		t.Fatal("the article page has no main text")
	}
	f := PageFeatures(res) // extracts the text once
	if f.Text != len(text) {
		t.Fatalf("features count %d bytes of text, the page's text has %d", f.Text, len(text))
	}
	if n := testing.AllocsPerRun(100, func() { PageFeatures(res) }); n != 0 {
		t.Fatalf("weighing a parsed page allocates %.0f times, want none", n)
	}
}

// What one decider learned, restored into another, decides its sections at once;
// a verdict the second learned itself stays.
func TestDeciderVerdictsRestore(t *testing.T) {
	shell := Features{Shell: true}
	a := &Decider{}
	a.Learn("spa.test", "http://spa.test/a/1", shell, Features{Links: 30, Text: 2000})
	a.Learn("spa.test", "http://spa.test/news/1", shell, shell)
	b := &Decider{}
	b.Learn("spa.test", "http://spa.test/news/2", shell, Features{Links: 30, Text: 2000})
	b.Restore(a.Verdicts())
	if need, why := b.Need("spa.test", "http://spa.test/a/9", shell); !need || why == WhyLearning {
		t.Errorf("restored dynamic section: need=%v (%s); want rendered on the verdict", need, why)
	}
	if known, dynamic := b.Verdict("spa.test", "http://spa.test/news/3"); !known || !dynamic {
		t.Errorf("the section the decider learned itself: known=%v dynamic=%v; want its own verdict kept", known, dynamic)
	}
}

// LearnVerdict names the section a render taught and its verdict, as Verdicts
// keys it: what a worker sends its master.
func TestLearnVerdictNamesTheSection(t *testing.T) {
	d := &Decider{}
	shell := Features{Links: 2, Shell: true}
	sec, dynamic := d.LearnVerdict("spa.test", "http://spa.test/a/1", shell, Features{Links: 30, Text: 2000})
	if sec != "spa.test/a" || !dynamic {
		t.Errorf("LearnVerdict = %q, %v; want spa.test/a, true", sec, dynamic)
	}
	if vs := d.Verdicts(); len(vs) != 1 || !vs[sec] {
		t.Errorf("Verdicts %v; want the section LearnVerdict named", vs)
	}
}
