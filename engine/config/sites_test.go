package config

import (
	"strings"
	"testing"
)

func TestSitesConfigErrorsNameTheEntry(t *testing.T) {
	t.Parallel()
	news := SiteOptions{Name: "ok", Kind: SiteNews, Entry: "https://ok.com/"}
	for _, tc := range []struct {
		name string
		site SiteOptions
		want string
	}{
		{"no keyword placeholder", SiteOptions{Name: "x", Kind: SiteSocial, Search: "https://s.com/search?page={page}", Keywords: []string{"a"}},
			`sites[1] (name "x"): search template has no {keyword}`},
		{"no page placeholder", SiteOptions{Name: "x", Kind: SiteSocial, Search: "https://s.com/search?q={keyword}", Keywords: []string{"a"}},
			`sites[1] (name "x"): search template has no {page} but pages is 5`},
		{"bad kind", SiteOptions{Name: "y", Kind: "blog", Entry: "https://y.com/"},
			`sites[1] (name "y"): kind must be "news" or "social", got "blog"`},
		{"news without entry", SiteOptions{Name: "z", Kind: SiteNews},
			`sites[1] (name "z"): entry is missing`},
		{"relative entry", SiteOptions{Name: "z", Kind: SiteNews, Entry: "/index.html"},
			`sites[1] (name "z"): entry "/index.html" is not an http(s) URL`},
		{"social without keywords", SiteOptions{Name: "s", Kind: SiteSocial, Search: "https://s.com/?q={keyword}&p={page}"},
			`sites[1] (name "s"): no keywords to search`},
		{"duplicate name", SiteOptions{Name: "ok", Kind: SiteNews, Entry: "https://b.com/"},
			`sites[1] (name "ok"): name already used by sites[0]`},
		{"unknown class", SiteOptions{Name: "c", Kind: SiteNews, Entry: "https://c.com/", Class: "web_org"},
			`sites[1] (name "c"): unknown class "web_org"`},
		{"empty keyword", SiteOptions{Name: "k", Kind: SiteNews, Entry: "https://k.com/", Keywords: []string{" "}},
			`sites[1] (name "k"): an empty keyword`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			o.Sites = []SiteOptions{news, tc.site}
			err := o.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want it to say %q", err, tc.want)
			}
		})
	}
	o := DefaultOptions()
	o.Rounds.Every = 0
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "rounds.every") {
		t.Errorf("rounds.every 0: %v", err)
	}
}
