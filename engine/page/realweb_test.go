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

// Furigana (<rt>) over the kanji of a Japanese headline is a reading aid, not
// text: the headline and the main text read "子どもへの体罰", as NHK's easy-Japanese
// pages print it, not "子 こ どもへの 体罰 たいばつ".
func TestRubyAnnotationsAreNotText(t *testing.T) {
	para := `<p><ruby>子<rt>こ</rt></ruby>どもへの<ruby>虐待<rp>(</rp><rt>ぎゃくたい</rt><rp>)</rp></ruby>をなくすための<ruby>法律<rt>ほうりつ</rt></ruby>ができて、親が子どもを教育するために、たたいたり蹴ったりする体罰を禁止することになりました。</p>`
	page := `<!doctype html><html lang="ja"><head><title>NEWS WEB EASY|子どもへの体罰を禁止する法律ができる</title></head><body><article>
<h1 class="article-main__title"><ruby>子<rt>こ</rt></ruby>どもへの<ruby>体罰<rt>たいばつ</rt></ruby>を<ruby>禁止<rt>きんし</ruby>する<ruby>法律<rt>ほうりつ</rt></ruby>ができる</h1>
<div class="article-main__body">` + strings.Repeat(para, 4) + `</div></article></body></html>`
	md := Parse([]byte(page), "text/html; charset=utf-8", nil).Meta("", time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	if want := "子どもへの体罰を禁止する法律ができる"; md.Headline.Value != want {
		t.Errorf("headline %q, want %q", md.Headline.Value, want)
	}
	text, ok := MainText([]byte(page), "text/html; charset=utf-8")
	if !ok || !strings.Contains(text.Body, "子どもへの虐待をなくすための法律ができて") || strings.Contains(text.Body, "ぎゃくたい") {
		t.Errorf("main text %q (ok %v): want the text without its readings", text.Body, ok)
	}
}
