// Package pagetest holds the test articles and page layouts that the page model's
// tests and the revisit tracker's tests read: news pages in several scripts with the
// churn real sites carry (timestamps, counters, ads, comments).
package pagetest

import (
	"fmt"
	"strings"
)

// Articles are test articles: two unrelated articles per script, written for the
// tests.
var Articles = map[string][2][]string{
	"chinese": {
		{
			"本市第三条地铁线路今天上午正式开通运营，全长二十八公里，共设车站二十一座，连接城市东部的新区与西部的老城区。",
			"市交通局负责人在开通仪式上表示，新线路开通后，早晚高峰期间的行车间隔将缩短至三分钟，预计每天可以分流地面公交客流约十五万人次。",
			"沿线居民普遍对新线路表示欢迎。一位在老城区工作的市民说，过去每天上班要换乘两次公交车，路上需要一个多小时，现在乘坐地铁只要三十五分钟。",
			"据介绍，该线路在建设过程中采用了多项节能技术，车站照明全部使用发光二极管灯具，列车制动时产生的电能可以回馈电网再次利用。",
			"下一步，交通部门还将优化地铁站周边的公交线路，增设共享单车停放点，方便乘客换乘，进一步提高公共交通的整体效率。",
		},
		{
			"今年秋季，北方多个省份的玉米和大豆喜获丰收，农业部门统计显示，主要产区的平均亩产比去年提高了百分之六左右。",
			"农业专家分析认为，今年雨水分布比较均匀，加上病虫害防治及时，良种良法推广面积不断扩大，是粮食增产的主要原因。",
			"在一个种植合作社里，几台大型收割机正在田间来回作业，合作社负责人介绍说，机械化收割让秋收时间比往年缩短了将近一半。",
			"与此同时，各地粮食收购工作也已全面展开，有关部门要求收购企业严格执行质量标准，做到优质优价，切实保护种粮农民的利益。",
			"气象部门提醒，近期将有一次较强冷空气过程，尚未完成秋收的地区要抓住晴好天气，及时抢收晾晒，防止粮食受潮霉变。",
		},
	},
	"english": {
		{
			"The city opened its third subway line this morning, a twenty-eight kilometre route with twenty-one stations linking the new eastern district with the old town in the west.",
			"At the opening ceremony the head of the transport department said trains would run every three minutes at peak hours, taking about one hundred and fifty thousand daily riders off the buses.",
			"Residents along the route welcomed the line. One office worker said her commute used to take more than an hour with two bus changes, and now takes thirty-five minutes by train.",
			"The line was built with several energy-saving measures: stations are lit entirely by light-emitting diodes, and the energy recovered when trains brake is fed back into the grid.",
			"Next, the department plans to redesign the bus routes around the stations and add bicycle parking, so that passengers can change easily between modes of transport.",
		},
		{
			"Farmers across the northern provinces brought in a record harvest of maize and soybeans this autumn, with average yields about six percent above last year according to the agriculture ministry.",
			"Agronomists credit evenly spread summer rain, timely control of pests and disease, and the steady adoption of improved seed varieties for the larger crop.",
			"At one cooperative, a fleet of combine harvesters worked the fields in long rows; its manager said machines had cut the length of the harvest season nearly in half.",
			"Grain purchasing has begun across the region, and buyers have been told to apply quality standards strictly and pay fair prices for better grain to protect growers' income.",
			"Forecasters warn that a strong cold front is on its way, and urge districts that have not finished harvesting to use the dry days to gather and dry their crops before they spoil.",
		},
	},
	"russian": {
		{
			"Сегодня утром в городе открылась третья линия метро протяжённостью двадцать восемь километров, которая соединила новый восточный район со старым центром.",
			"На церемонии открытия глава транспортного управления сообщил, что в часы пик поезда будут ходить каждые три минуты, что разгрузит автобусы примерно на сто пятьдесят тысяч пассажиров в день.",
			"Жители районов вдоль новой линии встретили её с радостью. Одна из пассажирок рассказала, что раньше добиралась до работы больше часа с двумя пересадками, а теперь тратит тридцать пять минут.",
			"При строительстве применили энергосберегающие технологии: станции освещаются только светодиодными лампами, а энергия торможения поездов возвращается в сеть.",
			"В дальнейшем управление планирует перестроить автобусные маршруты вокруг станций и добавить стоянки для велосипедов, чтобы пассажирам было удобнее делать пересадки.",
		},
		{
			"Этой осенью аграрии северных областей собрали рекордный урожай кукурузы и сои: по данным министерства, средняя урожайность выросла примерно на шесть процентов.",
			"Специалисты объясняют рост равномерными летними дождями, своевременной борьбой с вредителями и болезнями и широким внедрением новых сортов семян.",
			"В одном из кооперативов по полю длинными рядами шли комбайны; председатель рассказал, что техника сократила сроки уборки почти вдвое по сравнению с прошлыми годами.",
			"Закупки зерна уже начались по всему региону, и покупателям поручено строго соблюдать стандарты качества и платить справедливую цену за хорошее зерно.",
			"Синоптики предупреждают о приближении сильного похолодания и советуют хозяйствам, не закончившим уборку, использовать сухие дни, чтобы успеть собрать и просушить урожай.",
		},
	},
}

// Churn is the boilerplate that changes between two fetches of the same article:
// the clock, the ad in rotation, the view counter and the latest comments.
type Churn struct {
	Stamp   string
	Ad      string
	Views   int
	Comment string
	Hot     []string
	Inline  string // churn in an unmarked element, caught only by block density
}

// Churns are three fetches' worth of churn, in three scripts.
var Churns = []Churn{
	{Stamp: "2024-05-01 08:00:13", Ad: "Buy the new SuperPhone X today — 30% off!", Views: 1021,
		Comment: "First!", Hot: []string{"Weather warning for the weekend", "Local team wins cup final"},
		Inline: "Updated 08:00 by staff reporter, 1,021 readers, 3 comments"},
	{Stamp: "2024-05-01 19:42:57", Ad: "限时特惠：全场家电五折起，快来抢购吧！", Views: 98765,
		Comment: "Very informative article, thanks for sharing the details with us.",
		Hot:     []string{"Markets close higher", "New museum opens downtown", "Ticket prices rise"},
		Inline:  "Updated 19:42 by staff reporter, 98,765 readers, 12 comments"},
	{Stamp: "2024-05-03 02:11:00", Ad: "Скидки на зимние шины до конца недели", Views: 250113,
		Comment: "Интересно, когда откроют следующую линию?", Hot: []string{"Traffic update"},
		Inline: "Updated 02:11 by staff reporter, 250,113 readers, 40 comments"},
}

// ArticlePage renders a news page around paragraphs with the given churn, in the
// layout real news sites use: header and nav, the article with its timestamp and
// view counter, ad slots, a "hot" sidebar, comments and a footer.
func ArticlePage(title string, paras []string, c Churn) string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>` + title + ` | Daily</title>`)
	b.WriteString(`<script>var t="` + c.Stamp + `";</script><style>.ad{color:red}</style></head><body>`)
	b.WriteString(`<header><a href="/">Daily News</a> <span>` + c.Stamp + `</span></header>`)
	b.WriteString(`<nav><ul><li><a href="/world">World</a></li><li><a href="/city">City</a></li><li><a href="/sport">Sport</a></li></ul></nav>`)
	b.WriteString(`<div class="main"><div class="article"><h1>` + title + `</h1>`)
	b.WriteString(`<div class="info"><span class="pubtime">` + c.Stamp + `</span> <span class="view-count">` + fmt.Sprint(c.Views) + `</span></div>`)
	if c.Inline != "" {
		b.WriteString(`<div>` + c.Inline + `</div>`)
	}
	for i, p := range paras {
		b.WriteString("<p>" + p + "</p>\n")
		if i == 1 {
			b.WriteString(`<div class="ad-slot"><a href="/ad">` + c.Ad + `</a></div>`)
		}
	}
	b.WriteString(`</div><div id="comments"><h3>Comments</h3><p>` + c.Comment + `</p></div></div>`)
	b.WriteString(`<aside class="sidebar"><h3>Hot</h3><ul>`)
	for _, h := range c.Hot {
		b.WriteString(`<li><a href="/x">` + h + `</a></li>`)
	}
	b.WriteString(`</ul></aside><footer>(c) 2024 Daily News · ` + c.Stamp + `</footer></body></html>`)
	return b.String()
}
