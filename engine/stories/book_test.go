package stories

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/page"
)

// article renders paragraphs as a news page of one outlet: its chrome, a headline,
// a byline, a dateline on the first paragraph and an ad after the second.
func article(outlet, headline, byline, dateline string, paras []string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "<html><head><title>%s | %s</title></head><body><header><nav><a href=/>%s</a> <a href=/world>World</a> <a href=/sport>Sport</a></nav></header><main><article><h1>%s</h1><p class=byline>%s</p>",
		headline, outlet, outlet, headline, byline)
	for i, p := range paras {
		if i == 0 {
			p = dateline + p
		}
		fmt.Fprintf(&b, "<p>%s</p>", p)
		if i == 1 {
			fmt.Fprintf(&b, "<div class=ad><p>Advertisement: %s subscriptions</p></div>", outlet)
		}
	}
	fmt.Fprintf(&b, "</article></main><footer><p>© 2026 %s. All rights reserved. Privacy · Terms</p></footer></body></html>", outlet)
	return []byte(b.String())
}

func storyFP(t *testing.T, html []byte) uint64 {
	t.Helper()
	text, ok := page.MainText(html, "text/html; charset=utf-8")
	if !ok {
		t.Fatal("no main text")
	}
	fp, ok := Fingerprint(text)
	if !ok {
		t.Fatalf("no story fingerprint for %q", text.Body)
	}
	return fp
}

var (
	wireZH = []string{
		"新华社北京11月28日电 国家气象中心今天发布寒潮蓝色预警，预计未来三天我国中东部地区将出现大范围降温，部分地区降温幅度可达十度以上，并伴有大风和雨雪天气。",
		"气象专家提醒，此次寒潮影响范围广、降温幅度大，公众应注意防寒保暖，交通运输部门需提前做好道路结冰和积雪的应对准备，农业生产单位要加强设施农业的保温措施。",
		"据介绍，受冷空气影响，华北、黄淮等地最低气温将降至零下，江南北部也将出现今冬首场降雪，长江中下游地区的日平均气温将较常年同期明显偏低。",
		"中央气象台首席预报员表示，本轮寒潮过后，全国大部地区气温将缓慢回升，但十二月上旬仍可能有新的冷空气活动，相关部门将持续做好监测预报和预警服务。",
	}
	otherZH = []string{
		"本报讯 市文化和旅游局昨日宣布，今年冬季将在全市二十个公园举办灯光艺术节，展出由本地艺术家设计的大型灯组，活动将持续到明年元宵节前后。",
		"主办方介绍，灯光艺术节分为传统灯彩、现代光影和互动装置三大板块，其中互动装置区设置了多个可供游客参与的光影游戏，适合亲子家庭共同体验。",
		"为保障游园安全，各公园将实行预约限流，并增设临时停车场和接驳公交线路，市民可通过官方小程序查询各园区的实时客流和开放时间。",
		"业内人士认为，夜间文旅消费正成为拉动城市经济的新引擎，灯光艺术节不仅丰富了市民的冬季生活，也有望吸引周边城市游客前来观光。",
	}
	wireEN = []string{
		"The national weather service issued a cold wave warning on Friday, saying temperatures across the central and eastern regions would fall by more than ten degrees over the next three days, with strong winds, sleet and snow in many places.",
		"Forecasters urged residents to protect themselves against the cold, and asked road authorities to prepare for ice and snow on highways, while farmers were told to keep greenhouses warm through the coldest nights of the week.",
		"The cold air will push the lowest temperatures below freezing across the northern plains, and the first snow of the winter is expected south of the river, where daily averages will stay well under what is usual for late November.",
		"The chief forecaster said temperatures would recover slowly once the cold wave passes, but another burst of cold air could arrive in early December, and the service would keep issuing warnings as the situation develops.",
	}
)

// TestSyndicatedCopiesShareAStory: the same wire story run by three outlets, each
// with its own chrome, headline, byline, dateline and ads, is one story, in
// Chinese as in English; another story of the same outlet is not in it. The
// story's first page is the earliest publisher, whichever was added first.
func TestSyndicatedCopiesShareAStory(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		pages  [][]byte
		other  []byte
		latest int // the copy added first is published last
	}{
		{"chinese", [][]byte{
			article("新华网", "寒潮蓝色预警：中东部将大范围降温", "记者 王明", "", wireZH),
			article("东方日报", "寒潮来袭 多地降温超十度", "本报综合报道", "北京电 —— ", wireZH),
			article("南方晚报", "注意保暖！新一轮寒潮即将到来", "来源：新华社", "【北京】", wireZH),
		}, article("东方日报", "冬季灯光艺术节即将开幕", "本报记者", "", otherZH), 2},
		{"english", [][]byte{
			article("Wire Service", "Cold wave warning issued for central and eastern regions", "By Staff", "", wireEN),
			article("Harbor Times", "Brace yourselves: temperatures to plunge", "By The Associated Press", "WASHINGTON (AP) — ", wireEN),
			article("Valley Courier", "WATCH: Cold snap coming this weekend", "From Reuters", "BEIJING: ", wireEN),
		}, article("Harbor Times", "Lantern festival opens in twenty parks", "By Staff", "", []string{
			"The city's culture and tourism office announced on Thursday that twenty parks would host a winter festival of light this year, showing large lantern installations designed by local artists until the spring festival.",
			"The organisers said the festival has three parts, traditional lanterns, modern light shows and interactive installations, where visitors can play games of light and shadow that suit families with young children.",
			"To keep visitors safe the parks will take bookings and cap the crowds, open temporary car parks and run shuttle buses, and residents can check the live crowd levels and opening hours in the official app.",
		}), 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := NewBook()
			order := []int{c.latest}
			for i := range c.pages {
				if i != c.latest {
					order = append(order, i)
				}
			}
			var ids []string
			for _, i := range order {
				id, _ := b.Add(Page{URL: fmt.Sprintf("https://outlet%d.example/story", i), Site: fmt.Sprint("outlet", i),
					SimHash: storyFP(t, c.pages[i]), Published: base.Add(time.Duration(i) * time.Hour), Fetched: base.Add(time.Duration(10-i) * time.Hour)})
				ids = append(ids, id)
			}
			for _, id := range ids[1:] {
				if id != ids[0] {
					t.Fatalf("copies in different stories: %v (distances %d, %d)", ids,
						page.Distance(storyFP(t, c.pages[0]), storyFP(t, c.pages[1])), page.Distance(storyFP(t, c.pages[0]), storyFP(t, c.pages[2])))
				}
			}
			if id, _ := b.Add(Page{URL: "https://outlet1.example/other", SimHash: storyFP(t, c.other)}); id == ids[0] {
				t.Fatal("another story of the same outlet joined the wire story")
			}
			s, ok := b.StoryOf("https://outlet2.example/story")
			if !ok || len(s.Pages) != 3 || s.Sites != 3 {
				t.Fatalf("story of the last copy: %+v", s)
			}
			if s.Pages[0].URL != "https://outlet0.example/story" {
				t.Fatalf("first page %s, want the earliest publisher outlet0", s.Pages[0].URL)
			}
			if _, stories, grouped := b.Len(); stories != 2 || grouped != 1 || len(b.Grouped(10)) != 1 {
				t.Fatalf("book: %d stories, %d grouped; want 2 and 1", stories, grouped)
			}
		})
	}
}

// TestPageFingerprintMissesSyndication: the page fingerprint (headline and every
// line) puts the English copies farther apart than MaxDistance: why stories have a
// fingerprint of their own.
func TestPageFingerprintMissesSyndication(t *testing.T) {
	a := article("Wire Service", "Cold wave warning issued for central and eastern regions", "By Staff", "", wireEN)
	b := article("Valley Courier", "WATCH: Cold snap coming this weekend", "From Reuters", "BEIJING: ", wireEN)
	fa, _ := page.Fingerprint(a, "text/html")
	fb, _ := page.Fingerprint(b, "text/html")
	if d := page.Distance(fa, fb); d <= MaxDistance {
		t.Skipf("page fingerprints %d bits apart: this pair does not show it", d)
	}
	if d := page.Distance(storyFP(t, a), storyFP(t, b)); d > MaxDistance {
		t.Fatalf("story fingerprints %d bits apart", d)
	}
}

// TestFingerprintBoundedOnHugeText: a body of millions of words costs at most
// page.MaxStoryFeatures features and is a fingerprint, not a hang.
func TestFingerprintBoundedOnHugeText(t *testing.T) {
	para := strings.Repeat("word after word of a very long paragraph ", 50)
	body := strings.Repeat(para+"\n", 5000)
	start := time.Now()
	if _, ok := Fingerprint(page.Text{Body: body}); !ok {
		t.Fatal("no fingerprint")
	}
	if _, ok := Fingerprint(page.Text{Body: "Short.\nLines only.\nBy Staff"}); ok {
		t.Fatal("a text without prose has a story fingerprint")
	}
	t.Logf("%d MB in %v", len(body)>>20, time.Since(start))
}

// TestStoryIDIsTheFingerprintInHex: a story's id is its first page's fingerprint as
// 16 hex digits, as stored and shown.
func TestStoryIDIsTheFingerprintInHex(t *testing.T) {
	for _, fp := range []uint64{0, 1, 0xabc, 0x0123456789abcdef, 1<<63 | 5, ^uint64(0)} {
		if got, want := storyID(fp), fmt.Sprintf("%016x", fp); got != want {
			t.Errorf("storyID(%#x) = %q, want %q", fp, got, want)
		}
	}
}
