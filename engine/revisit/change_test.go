package revisit

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/page/pagetest"
)

// observePair runs two fetches of a page through a tracker, as the engine does, and
// returns the second verdict and the page state.
func observePair(t *testing.T, cfg Config, a, b string) (Verdict, *Page) {
	t.Helper()
	tr, err := NewTracker(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &Page{URL: "https://news.example.com/a"}
	var v Verdict
	for i, body := range []string{a, b} {
		sig, _, ok := page.Sign([]byte(body), "text/html; charset=utf-8")
		if !ok {
			t.Fatalf("fetch %d: no text", i)
		}
		v = tr.Observe(p, time.Date(2026, 1, 1, i, 0, 0, 0, time.UTC), Outcome{Hash: sig.SimHash, OK: true, Sig: sig, HasDigest: true})
	}
	return v, p
}

// A reworded consent banner (with the usual relative time and counter
// churn) is not a change, even beside a short article; a paragraph appended to a
// long article is, and so is a new headline. The seed's SimHash rule sees the banner
// and misses the appended paragraph.
func TestConsentChurnIsNoChangeButAnAppendedParagraphIs(t *testing.T) {
	short := pagetest.ArticleParas[:2]
	long := pagetest.ArticleParas
	appended := append(append([]string(nil), long...), "The council also said on Wednesday that the engineers' report would be followed by a public meeting in the town hall, where residents may question the authors.")
	cases := []struct {
		name       string
		a, b       string
		want       Verdict
		wantReason ChangeReason
	}{
		{"consent reworded, short article", pagetest.NewsPage("Flood report", short, pagetest.ConsentTexts[0], 5, 1204), pagetest.NewsPage("Flood report", short, pagetest.ConsentTexts[1], 47, 98765), VerdictUnchanged, ReasonBoilerplate},
		{"consent reworded, long article", pagetest.NewsPage("Flood report", long, pagetest.ConsentTexts[0], 5, 1204), pagetest.NewsPage("Flood report", long, pagetest.ConsentTexts[1], 47, 98765), VerdictUnchanged, ReasonBoilerplate},
		{"paragraph appended to a long article", pagetest.NewsPage("Flood report", long, pagetest.ConsentTexts[0], 5, 1204), pagetest.NewsPage("Flood report", appended, pagetest.ConsentTexts[0], 5, 1204), VerdictChanged, ReasonText},
		{"headline rewritten", pagetest.NewsPage("Flood report", long, pagetest.ConsentTexts[0], 5, 1204), pagetest.NewsPage("Council delays flood report", long, pagetest.ConsentTexts[0], 5, 1204), VerdictChanged, ReasonHeadline},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, p := observePair(t, Config{}, c.a, c.b)
			if v != c.want || p.Reason != c.wantReason {
				t.Fatalf("verdict %v (%v), want %v (%v); SimHash distance %d", v, p.Reason, c.want, c.wantReason, p.Distance)
			}
			if c.want == VerdictChanged && (p.X != 2 || p.Change.Reason != c.wantReason || p.Change.Distance != p.Distance) {
				t.Errorf("x = %d, last change %+v; want x 2 and the change recorded", p.X, p.Change)
			}
		})
	}
}

// The small-edit policy: three words changed in a long article count by default and
// not under "ignore".
func TestSmallEditsPolicy(t *testing.T) {
	edited := append([]string(nil), pagetest.ArticleParas...)
	edited[10] = strings.Replace(edited[10], "heard residents on", "heard officials about", 1)
	a := pagetest.NewsPage("Flood report", pagetest.ArticleParas, pagetest.ConsentTexts[0], 5, 1204)
	b := pagetest.NewsPage("Flood report", edited, pagetest.ConsentTexts[0], 5, 1204)
	if v, _ := observePair(t, Config{}, a, b); v != VerdictChanged {
		t.Errorf("default policy: verdict %v, want changed", v)
	}
	if v, p := observePair(t, Config{SmallEdits: SmallEditsIgnore}, a, b); v != VerdictUnchanged || p.Reason != ReasonSmallEdit {
		t.Errorf("ignore policy: verdict %v (%v), want unchanged (small edit)", v, p.Reason)
	}
	if _, err := NewTracker(Config{SmallEdits: "sometimes"}, nil); err == nil {
		t.Error("an unknown small-edit policy was accepted")
	}
}

// Through the tracker: a run of bad fetches between two fetches of the same article
// is neither a change nor an "unchanged" that stretches the interval.
func TestBadBodiesNeverChangeState(t *testing.T) {
	tr, err := NewTracker(Config{Initial: time.Hour}, nil)
	if err != nil {
		t.Fatal(err)
	}
	article := []byte(pagetest.ArticlePage("A", pagetest.Articles["english"][0], pagetest.Churns[0]))
	bad := [][]byte{nil, []byte("<html></html>"), []byte("\x00\x01binary\x00"), bytes.Repeat([]byte{0xff}, 100),
		[]byte("<p>" + strings.Repeat("\xc4\xe3\xba\xc3", 50) + "</p>")} // GBK 你好, undeclared
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &Page{URL: "https://news.example.com/a"}
	h, ok := page.Fingerprint(article, "text/html")
	tr.Observe(p, t0, Outcome{Hash: h, OK: ok})
	before := *p
	for i, body := range bad {
		bh, bok := page.Fingerprint(body, "text/html")
		now := t0.Add(time.Duration(i+1) * time.Hour)
		if v := tr.Observe(p, now, Outcome{Hash: bh, OK: bok}); v != VerdictUnknown {
			t.Fatalf("bad body %d: verdict %v, want unknown", i, v)
		}
		if p.T != before.T || p.X != before.X || p.Hash != before.Hash || !p.Last.Equal(before.Last) {
			t.Fatalf("bad body %d changed the seed state: %+v", i, p)
		}
	}
	later := []byte(pagetest.ArticlePage("A", pagetest.Articles["english"][0], pagetest.Churns[2]))
	h2, _ := page.Fingerprint(later, "text/html")
	now := t0.Add(10 * time.Hour)
	if v := tr.Observe(p, now, Outcome{Hash: h2, OK: true}); v != VerdictUnchanged {
		t.Fatalf("same article after bad fetches: verdict %v, want unchanged", v)
	}
	if p.T != 10*time.Hour {
		t.Errorf("t = %v, want the whole 10h since the last comparable fetch", p.T)
	}
}
