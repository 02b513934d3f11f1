package page

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding/simplifiedchinese"
)

// A gb2312 page whose <meta> declaration comes after an archive's 1.5 KiB of
// scripts (the Wayback Machine's copy of he.xinhuanet.com) is read as gb2312: the
// first KiB has no declaration, but a browser still switches when it reaches the tag.
func TestLateMetaCharsetDecodes(t *testing.T) {
	gb := func(s string) string {
		out, err := simplifiedchinese.GBK.NewEncoder().String(s)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	headline := "话剧《约定无期限》河北各市巡演结束"
	para := "由河北省话剧院创作演出的大型话剧在全省各市巡演圆满结束，观众反响热烈，演出受到各界好评。"
	page := `<!DOCTYPE html><html><head><script type="text/javascript">` + strings.Repeat("var archive_analytics = {};\n", 60) +
		`</script>` + "\n" + `<meta http-equiv="Content-Type" content="text/html; charset=gb2312"/><title>` + gb(headline) +
		`</title></head><body><h1>` + gb(headline) + `</h1><div class="content"><p>` + gb(strings.Repeat(para, 4)) + `</p><p>` +
		gb(strings.Repeat(para, 3)) + `</p></div></body></html>`
	if strings.Index(page, "<meta") < 1024 {
		t.Fatalf("the declaration is at %d: the test needs it past the first KiB", strings.Index(page, "<meta"))
	}
	p := Parse([]byte(page), "text/html", nil)
	md := p.Meta("", time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	if md.Headline.Value != headline {
		t.Errorf("headline %q, want %q", md.Headline.Value, headline)
	}
	if md.Language.Value != "zh" {
		t.Errorf("language %q, want zh", md.Language.Value)
	}
	text, ok := MainText([]byte(page), "text/html")
	if !ok || !strings.Contains(text.Body, "河北省话剧院") {
		t.Errorf("main text %q (ok %v), want the paragraphs in Chinese", text.Body, ok)
	}
}
