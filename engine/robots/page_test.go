package robots

import "testing"

func TestPageDirectives(t *testing.T) {
	const us = "crawlconsole"
	type meta struct{ name, content string }
	for _, c := range []struct {
		name    string
		metas   []meta
		headers []string
		want    Directives
	}{
		{"none", nil, nil, Directives{}},
		{"meta robots noindex", []meta{{"robots", "noindex"}}, nil, Directives{NoIndex: true}},
		{"meta robots both, odd case and spaces", []meta{{"ROBOTS", " NoIndex , NOFOLLOW "}}, nil, Directives{NoIndex: true, NoFollow: true}},
		{"meta robots none", []meta{{"robots", "none"}}, nil, Directives{NoIndex: true, NoFollow: true}},
		{"meta robots all", []meta{{"robots", "all, noarchive"}}, nil, Directives{}},
		{"meta for us", []meta{{"CrawlConsole", "nofollow"}}, nil, Directives{NoFollow: true}},
		{"meta for another crawler", []meta{{"googlebot", "noindex"}}, nil, Directives{}},
		{"header general", nil, []string{"noindex, nofollow"}, Directives{NoIndex: true, NoFollow: true}},
		{"header scoped to us", nil, []string{"crawlconsole: nofollow"}, Directives{NoFollow: true}},
		{"header scoped to another", nil, []string{"googlebot: noindex"}, Directives{}},
		{"header scope runs on", nil, []string{"crawlconsole: noindex, nofollow"}, Directives{NoIndex: true, NoFollow: true}},
		{"header scope switches", nil, []string{"googlebot: nofollow, crawlconsole: noindex"}, Directives{NoIndex: true}},
		{"header unavailable_after is no agent", nil, []string{"unavailable_after: 25 Jun 2010 15:00:00 PST, noindex"}, Directives{NoIndex: true}},
		{"headers combine", nil, []string{"googlebot: noindex", "nofollow"}, Directives{NoFollow: true}},
		{"meta and header combine", []meta{{"robots", "noindex"}}, []string{"crawlconsole: nofollow"}, Directives{NoIndex: true, NoFollow: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var d Directives
			for _, m := range c.metas {
				d.AddMeta(m.name, m.content, us)
			}
			for _, h := range c.headers {
				d.AddHeader(h, us)
			}
			if d != c.want {
				t.Fatalf("got %+v, want %+v", d, c.want)
			}
		})
	}
}
