package page

import (
	"fmt"
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
	if want := "子どもへの体罰を禁止する法律ができる"; text.Title != want {
		t.Errorf("main text's headline %q, want %q (no space where the markup cuts a word)", text.Title, want)
	}
}

// A JSON-LD block wrapped in <![CDATA[ … ]]> (Libération's pages) is read: its
// authors are the byline.
func TestJSONLDInCDATA(t *testing.T) {
	ld := `<script type="application/ld+json">
        <![CDATA[
        {"@context": "http://schema.org", "@type": "NewsArticle", "headline": "Screenshot : «Vape Wave», «6 Days», «Alphonse Président»",
         "datePublished": "2017-11-24T18:42:20", "author": [{"@type": "Person", "name": "Alexandre Hervaud"}, {"@type": "Person", "name": "Jérémy Piette"}]}
        ]]>
        </script>`
	md := Parse([]byte(article(ld, "")), "text/html; charset=utf-8", nil).Meta("", metaNow)
	if got := strings.Join(md.Authors, ";"); got != "Alexandre Hervaud;Jérémy Piette" {
		t.Errorf("authors %q (from %s), want the JSON-LD's two", got, md.AuthorsFrom)
	}
	if got := md.Published.Day(); got != "2017-11-24" {
		t.Errorf("published %q, want 2017-11-24", got)
	}
}

// A site's name in an <h1> before the article's (AFPBB News, Prachatai, the
// GiveWell blog) is in the <title> too, but the article's <h1> matches more of
// it: the headline is the article's.
func TestSiteNameH1IsNotTheHeadline(t *testing.T) {
	page := `<!doctype html><html lang="ja"><head><title>動画：ナイジェリアで少女らによる自爆攻撃、ロケット弾も撃ち込まれ31人死亡 国際ニュース：AFPBB News</title></head><body>
<header><a href="/"><h1 class="hide-text"><span>国際ニュース：AFPBB News</span></h1></a></header>
<article><h1 class="title">動画：ナイジェリアで少女らによる自爆攻撃、ロケット弾も撃ち込まれ31人死亡</h1>
<p>ナイジェリア北東部ボルノ州の州都マイドゥグリ近郊で、少女らによる自爆攻撃があり、ロケット弾も撃ち込まれ、少なくとも31人が死亡した。</p>
<p>当局によると、攻撃はイスラム過激派組織ボコ・ハラムによるものとみられる。</p></article></body></html>`
	md := Parse([]byte(page), "text/html; charset=utf-8", nil).Meta("", metaNow)
	if want := "動画：ナイジェリアで少女らによる自爆攻撃、ロケット弾も撃ち込まれ31人死亡"; md.Headline.Value != want {
		t.Errorf("headline %q (from %s), want %q", md.Headline.Value, md.Headline.From, want)
	}
}

// A Chinese, Japanese or Russian byline's label is not the name: "作者：张三" is
// 张三, "記者　山田太郎" 山田太郎, "Автор: Иван Петров" Иван Петров; in a line of
// credits the author's is the one read, not the source's or the editor's.
func TestBylineLabelsOtherScripts(t *testing.T) {
	for _, tc := range []struct{ byline, want string }{
		{`<div class="author">作者：张三</div>`, "张三"},
		{`<span class="byline">Автор: Иван Петров</span>`, "Иван Петров"},
		{`<div class="author">Текст: Анна Смирнова</div>`, "Анна Смирнова"},
		{`<p class="author">記者　山田太郎</p>`, "山田太郎"},
		{`<span class="author">（記者 田中一郎）</span>`, "田中一郎"},
		{`<p class="byline">文／記者王小明</p>`, "王小明"},
		{`<div class="article-author">来源：新华社 作者：李明 责任编辑：王芳</div>`, "李明"},
	} {
		md := Parse([]byte(article("", tc.byline)), "text/html; charset=utf-8", nil).Meta("", metaNow)
		if got := strings.Join(md.Authors, ";"); got != tc.want {
			t.Errorf("%s: authors %q, want %q", tc.byline, got, tc.want)
		}
	}
}

// A line of the <h1> that no title has is not the headline's: Nikkei's <h1> puts
// its byline after a <br>.
func TestH1LineNoTitleHasIsNotTheHeadline(t *testing.T) {
	page := `<!doctype html><html lang="ja"><head><title>米朝首脳直通電話 習氏に挑むトランプ戦術の成否 （写真＝ロイター） ：日本経済新聞</title></head><body>
<article><h1 class="cmn-article_title"><span>米朝首脳直通電話　習氏に挑むトランプ戦術の成否</span><br/><span>編集委員　中沢克二</span></h1>
<p>６月12日の歴史的な米朝首脳会談を巡って戦っていたのは、米大統領のトランプと北朝鮮委員長の金正恩ばかりではなかった。中国国家主席、習近平も重要な陰の参戦者だった。</p>
<p>核放棄を巡って「検証可能な」の文字がなく、米韓軍事演習の中止にまで踏み込んだ米朝会談は、トランプによる金正恩への一方的譲歩であった。</p></article></body></html>`
	md := Parse([]byte(page), "text/html; charset=utf-8", nil).Meta("", metaNow)
	if want := "米朝首脳直通電話 習氏に挑むトランプ戦術の成否"; md.Headline.Value != want {
		t.Errorf("headline %q (from %s), want %q", md.Headline.Value, md.Headline.From, want)
	}
}

// A page that declares its charset in its first KiB keeps it: a later <meta> (a
// template's second declaration) does not override the first, as in a browser.
func TestEarlyMetaCharsetWins(t *testing.T) {
	page := `<!DOCTYPE html><html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"><title>Caf` + "\xe9" + ` cr` + "\xe8" + `me</title>` +
		`<script>` + strings.Repeat("var a = {};\n", 100) + `</script><meta charset="utf-8"></head><body><p>` +
		strings.Repeat("Le caf\xe9 est une boisson tr\xe8s appr\xe9ci\xe9e. ", 20) + `</p></body></html>`
	out, _, ok := Decode([]byte(page), "text/html")
	if !ok || !strings.Contains(string(out), "Café crème") {
		i := max(strings.Index(string(out), "<title>"), 0)
		t.Errorf("ok %v; title read as %q; want Café crème (iso-8859-1, declared first)", ok, string(out[i:min(i+30, len(out))]))
	}
}

// An <rt> left open with no </ruby> (tag soup: the paragraph's end closes it in a
// browser) does not take the rest of the article with it.
func TestUnclosedRtKeepsTheArticle(t *testing.T) {
	para := `<p>親が子どもを教育するために、たたいたり蹴ったりする体罰を禁止することになりました。政府はこの法律について説明しました。</p>`
	for _, ruby := range []string{`<p><ruby>漢<rt>かん</p>`, `<p><ruby>漢<rt><span>か</span>ん</p>`, `<p><ruby>漢<rp>(<rt>かん<rp>)</p>`} {
		page := `<!doctype html><html lang="ja"><head><title>ニュース</title></head><body><article><h1>見出し</h1>` +
			ruby + strings.Repeat(para, 6) + `</article></body></html>`
		text, ok := MainText([]byte(page), "text/html; charset=utf-8")
		if !ok || !strings.Contains(text.Body, "政府はこの法律について説明しました") || strings.Contains(text.Body, "かん") {
			t.Errorf("%s: main text %q (ok %v): want the paragraphs after the open <rt>, without its reading", ruby, text.Body, ok)
		}
	}
}

// Korean is written with spaces between words: a headline or byline split by
// inline markup keeps its spaces.
func TestKoreanHeadlineKeepsItsSpaces(t *testing.T) {
	para := `<p>서울 지역에 많은 비가 내려 시민들의 피해가 커지고 있다고 기상청이 오늘 밝혔습니다. 당국은 주의를 당부했다.</p>`
	for _, h1 := range []string{
		`<h1 class="title"><span>서울</span> <span>폭우</span> <em>피해</em> 커져</h1>`,
		"<h1 class=\"title\"><span>서울</span>\n<span>폭우</span>\n<em>피해</em> 커져</h1>",
	} {
		page := `<!doctype html><html lang="ko"><head><title>서울 폭우 피해 커져</title></head><body><article>` + h1 +
			`<div class="byline"><div class="name">김철수</div><div class="role">기자</div></div><div class="body">` + strings.Repeat(para, 5) + `</div></article></body></html>`
		md := Parse([]byte(page), "text/html; charset=utf-8", nil).Meta("", time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
		if len(md.Authors) != 1 || md.Authors[0] != "김철수 기자" {
			t.Errorf("byline %q, want 김철수 기자", md.Authors)
		}
		if strings.Contains(md.Headline.Value, "서울폭우") {
			t.Errorf("headline %q: words glued", md.Headline.Value)
		}
	}
}

// A live feed in an <aside role="complementary"> beside a short story (Libération's
// "Direct" column) can hold more of the page's text than the story; the page's own
// <article> says where the story is, and the feed stays out of the main text. A
// comment's <article> or one in a named sidebar says no such thing (a long article
// in a widget-named wrapper keeps its text).
func TestLiveFeedBesideTheArticleIsChrome(t *testing.T) {
	story := []string{
		"Un troisième Français a été tué dans le tremblement de terre samedi au Népal, emporté par une coulée de boue lors d'un trek.",
		"L'appareil, mis à disposition par Airbus, était arrivé à Katmandou mercredi matin avec cinquante-cinq personnes à son bord.",
		"Le séisme a fait près de cinq mille cinq cents morts et touche huit des vingt-huit millions d'habitants du pays.",
	}
	var feed strings.Builder
	for i := range 12 {
		fmt.Fprintf(&feed, `<li class="live-item"><a class="live-item-pub-date" href="/direct/%d">14:%02d</a><div class="live-item-content"><span class="flavor-text">Défense.</span><p>Le ministère annonce la vente numéro %d de vingt-quatre avions de combat, un contrat de plusieurs milliards d'euros signé ce matin.</p></div></li>`, i, i, i)
	}
	page := `<!DOCTYPE html><html lang="fr"><head><meta charset="utf-8"><title>Népal</title></head><body><div class="ad-portal"><div class="main-content">
<div class="mod"><article><h1>Un troisième Français tué au Népal</h1><div class="article-body"><p>` + strings.Join(story, `</p><p>`) + `</p></div></article></div>
<aside id="sidebar" role="complementary"><div class="live"><ul class="live-flux">` + feed.String() + `</ul></div></aside></div></div></body></html>`
	text, ok := PageText([]byte(page), "text/html")
	if !ok {
		t.Fatal("no main text")
	}
	for _, p := range story {
		if !strings.Contains(text, p) {
			t.Fatalf("the story's %q lost; main text:\n%s", p, text)
		}
	}
	if strings.Contains(text, "avions de combat") {
		t.Errorf("the live feed is in the main text:\n%s", text)
	}

	// The same long text in a widget-named wrapper, with only comments' <article>s
	// beside it, is the article.
	var long strings.Builder
	for i := range 12 {
		fmt.Fprintf(&long, "<p>Le conseil municipal a voté le budget numéro %d après un long débat sur les écoles, les routes et les transports de la ville.</p>", i)
	}
	comments := `<div id="comments"><article class="comment"><p>` + strings.Join(story, " ") + `</p></article></div>`
	page = `<!DOCTYPE html><html lang="fr"><head><meta charset="utf-8"><title>Budget</title></head><body><div class="elementor-widget-wrap"><h1>Le budget voté</h1>` +
		long.String() + `</div>` + comments + `</body></html>`
	text, ok = PageText([]byte(page), "text/html")
	if !ok || !strings.Contains(text, "budget numéro 11") {
		t.Errorf("the article in a widget-named wrapper lost (ok %v):\n%s", ok, text)
	}

	// The same wrapper inside the page's <main>, a closing paragraph after it in
	// <main> too: <main> holds the wrapper, it is not beside it.
	closing := "<p>" + strings.Join(story, " ") + "</p>"
	page = `<!DOCTYPE html><html lang="fr"><head><meta charset="utf-8"><title>Budget</title></head><body><main><div class="elementor-widget-wrap"><h1>Le budget voté</h1>` +
		long.String() + `</div>` + closing + `</main></body></html>`
	text, ok = PageText([]byte(page), "text/html")
	if !ok || !strings.Contains(text, "budget numéro 11") {
		t.Errorf("the article in a widget-named wrapper inside <main> lost (ok %v):\n%s", ok, text)
	}
}

// NHK's date line gives the month and day alone ("[06月24日 11時30分]"): with no
// date with a year anywhere on the page, the year is the crawl day's when that puts
// the day at most a season before it (across New Year too), and is left unset
// otherwise: a day after the crawl, or one long before it, could be of any year.
func TestDateLineWithoutAYear(t *testing.T) {
	page := func(line string) string {
		return `<!doctype html><html lang="ja"><head><meta charset="utf-8"><title>NEWS WEB EASY|子どもへの体罰を禁止する法律ができる</title></head><body>
<article><h1 class="article-main__title">子どもへの体罰を禁止する法律ができる</h1><p class="article-main__date">` + line + `</p>
<div class="article-main__body"><p>子どもへの虐待をなくすための法律ができて、親が子どもを教育するために、たたいたり蹴ったりする体罰を禁止することになりました。</p>
<p>最近、親に虐待されて子どもが亡くなる事件が続いています。法律は来年の4月から始まります。</p></div></article></body></html>`
	}
	for _, c := range []struct {
		line  string
		crawl time.Time
		want  string // RFC 3339, "" for no date
	}{
		{"[06月24日 11時30分]", time.Date(2019, 6, 25, 3, 0, 0, 0, time.UTC), "2019-06-24T11:30:00Z"},
		{"[12月28日 9時05分]", time.Date(2027, 1, 5, 3, 0, 0, 0, time.UTC), "2026-12-28T09:05:00Z"},
		{"[06月24日]", time.Date(2019, 8, 1, 0, 0, 0, 0, time.UTC), "2019-06-24T00:00:00Z"},
		{"[06月24日 11時30分]", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), ""}, // five months before
		{"[06月24日 11時30分]", time.Date(2019, 6, 20, 0, 0, 0, 0, time.UTC), ""}, // after the crawl
		{"[2019年06月24日 11時30分]", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), "2019-06-24T11:30:00Z"},
		{"06月24日", time.Date(2019, 6, 25, 0, 0, 0, 0, time.UTC), "2019-06-24T00:00:00Z"}, // the line's first token
		{"[02月29日]", time.Date(2028, 3, 10, 0, 0, 0, 0, time.UTC), "2028-02-29T00:00:00Z"},
		{"[02月29日]", time.Date(2027, 3, 10, 0, 0, 0, 0, time.UTC), ""}, // no 29th in 2027's February
	} {
		md := Parse([]byte(page(c.line)), "text/html", nil).Meta("https://www3.nhk.or.jp/news/easy/k10011959621000/k10011959621000.html", c.crawl)
		got := ""
		if !md.Published.IsZero() {
			got = md.Published.Time.Format(time.RFC3339)
		}
		if got != c.want {
			t.Errorf("%s crawled %s: published %q (%s), want %q", c.line, c.crawl.Format("2006-01-02"), got, md.Published.From, c.want)
		}
	}
}

// A lead written as a <div> of text beside the article's body (delfi.lv's
// <div class="article__lead">) is a paragraph of the article, as a <p> there is:
// Readability reads a <div> with no block inside as a <p>.
func TestLeadDivBesideTheBodyIsText(t *testing.T) {
	lead := "Norvēģijas glābšanas komanda četras dienas pēc tam, kad zemes nogruvums apraka vairākas mājas Askas ciematā, atradusi piekto bojāgājušo."
	body := []string{
		"Naktī uz trešdienu Jerdrumas pašvaldības administratīvajā centrā Askā, kas atrodas apmēram 25 kilometrus uz ziemeļaustrumiem no galvaspilsētas, notika zemes nogruvums.",
		"Tas sev līdzi parāva vairākas mājas, dažas palika tieši uz kraujas malas, un glābēji strādā arī naktī.",
		"Glābšanas darbus, kas vēl joprojām turpinās, apgrūtina nestabila grunts, slikti laika apstākļi un ierobežots dienasgaismas stundu skaits.",
		"Nogruvuma rezultātā izveidojusies dziļa, 700 metrus gara un 300 metrus plata grava ar stāvām malām, un evakuēti vairāk nekā tūkstotis iedzīvotāju.",
	}
	page := `<!doctype html><html lang="lv"><head><meta charset="utf-8"><title>Nogruvums Norvēģijā</title></head><body>
<div class="article"><h1>Nogruvumā Norvēģijā atrasts piektais bojāgājušais</h1><div class="article__lead">` + lead + `</div>
<div class="article__body"><p>` + strings.Join(body, "</p><p>") + `</p></div></div></body></html>`
	text, ok := PageText([]byte(page), "text/html")
	if !ok || !strings.Contains(text, lead) || !strings.Contains(text, body[3]) {
		t.Errorf("the lead or the body lost (ok %v):\n%s", ok, text)
	}
}

// A line that is the page's stamp, a year and a time of day under a label in any
// language ("Submitted on Mon, 2019-01-21 13:49", CNN Arabic's "الأربعاء، 28
// آب/اغسطس 2013، آخر تحديث 14:00"), is not the article's text; a sentence that
// names a time and a year is.
func TestStampLineIsNotText(t *testing.T) {
	body := []string{
		"ولم ترد تقارير حول الخسائر البشرية، في حين دارت اشتباكات عنيفة بين الطرفين في وقت متأخر من ليل الجمعة، في قرية التويمية.",
		"أما الائتلاف الوطني السوري المعارض، فقد دعا في بيان له كافة الكتائب والفصائل المقاتلة في الشمال السوري إلى ضبط النفس.",
		"The council met at 10:30 on Tuesday and voted the 2019 budget.",
		"وشدد الائتلاف على ضرورة الابتعاد عن الأعمال الاستفزازية بكافة أشكالها، ويحذر كل من يستغل المرحلة الراهنة لتطبيق أجندات سياسية.",
	}
	for _, stamp := range []string{"Submitted on Mon, 2019-01-21 13:49", "الأربعاء، 28 آب/اغسطس 2013، آخر تحديث 14:00 (GMT+0400)"} {
		page := `<!doctype html><html lang="ar"><head><meta charset="utf-8"><title>معارضون يسيطرون على مخازن للصواريخ</title></head><body>
<div class="story"><h1>معارضون يسيطرون على مخازن للصواريخ بريف دمشق</h1><div class="cnn_strytmstmp">` + stamp + `</div><p>` + strings.Join(body, "</p><p>") + `</p></div></body></html>`
		text, ok := PageText([]byte(page), "text/html")
		if !ok || strings.Contains(text, stamp) {
			t.Errorf("the stamp %q in the main text (ok %v):\n%s", stamp, ok, text)
		}
		for _, p := range body {
			if !strings.Contains(text, p) {
				t.Errorf("%q lost:\n%s", p, text)
			}
		}
	}
}

// A paywall's notice where a members-only article is cut (Nikkei's "［有料会員限定］
// この記事は会員限定です。電子版に登録すると続きをお読みいただけます。") stands
// inside the article's container, and is the site's line, not the article's.
func TestPaywallNoticeIsNotText(t *testing.T) {
	body := []string{
		"６月12日の歴史的な米朝首脳会談を巡って戦っていたのは、米大統領と北朝鮮委員長ばかりではなかった。",
		"中国国家主席も、会談の開催地や日程を巡って水面下で激しい駆け引きを続けていた。関係者によると、準備は数カ月に及んだ。",
		"会談の直前には、北朝鮮の代表団が中国の航空機でシンガポールに入った。その意味は小さくない。",
	}
	notice := "［有料会員限定］ この記事は会員限定です。電子版に登録すると続きをお読みいただけます。"
	page := `<!doctype html><html lang="ja"><head><meta charset="utf-8"><title>米朝会談の裏で</title></head><body>
<div class="cmn-article_text"><h1>米朝会談の裏で動いた中国</h1><p>` + strings.Join(body, "</p><p>") + `</p>
<div class="m-articleRegist"><p class="m-articleRegist_text">` + notice + `</p></div></div></body></html>`
	text, ok := PageText([]byte(page), "text/html")
	if !ok || strings.Contains(text, "会員限定") {
		t.Errorf("the paywall's notice in the main text (ok %v):\n%s", ok, text)
	}
	for _, p := range body {
		if !strings.Contains(text, p) {
			t.Errorf("%q lost:\n%s", p, text)
		}
	}
}

// A news sentence that names subscribers is the article's text, not a paywall's
// notice, however short its paragraph.
func TestSubscribersInASentenceAreText(t *testing.T) {
	paras := []string{
		"Netflix reported strong quarterly results on Tuesday, beating analysts' expectations on both revenue and profit, as its advertising tier kept growing.",
		"The company said it would raise prices for subscribers in the US and Canada.",
		"A new tier is available to subscribers only, the company said.",
		"Its shares rose more than eight percent in after-hours trading, adding billions of dollars to the company's market value, before settling lower.",
	}
	page := `<!DOCTYPE html><html lang="en"><head><title>Netflix results</title></head><body><article><h1>Netflix beats expectations</h1><p>` +
		strings.Join(paras, "</p><p>") + `</p></article></body></html>`
	text, ok := PageText([]byte(page), "text/html")
	for _, p := range paras {
		if !strings.Contains(text, p) {
			t.Errorf("%q lost (ok %v); main text:\n%s", p, ok, text)
		}
	}
}
