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
		{"a host another site is on", SiteOptions{Name: "dup", Kind: SiteNews, Entry: "https://d.com/", Hosts: []string{"OK.com"}},
			`sites[1] (name "dup"): hosts: "ok.com" is named by sites[0] (name "ok") too`},
		{"a URL for a host", SiteOptions{Name: "h", Kind: SiteNews, Entry: "https://h.com/", Hosts: []string{"https://live.h.com/"}},
			`sites[1] (name "h"): hosts: host "https://live.h.com/" is not a host name or *.NAME`},
		{"an inner wildcard", SiteOptions{Name: "h", Kind: SiteNews, Entry: "https://h.com/", Hosts: []string{"live.*.h.com"}},
			`sites[1] (name "h"): hosts: host "live.*.h.com" is not a host name or *.NAME`},
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

// Two sites whose entries share a host are not refused (sections of one site
// declared apart), but said at start: the host's pages count for the first.
func TestSitesOnOneHostAreWarnedOf(t *testing.T) {
	t.Parallel()
	o := DefaultOptions()
	o.Sites = []SiteOptions{{Name: "front", Kind: SiteNews, Entry: "https://h.com/"}, {Name: "local", Kind: SiteNews, Entry: "https://H.com/local"},
		{Name: "other", Kind: SiteNews, Entry: "https://news.h.com/"}}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	w := o.SiteWarnings()
	if len(w) != 1 || !strings.Contains(w[0], `sites "front" and "local" are both on host h.com: its pages count for "front"`) {
		t.Errorf("warnings %q; want one naming front and local on h.com", w)
	}
	o.Sites[1].Hosts = []string{"h.com"}
	o.Sites[0].Hosts = []string{"h.com"}
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), `hosts: "h.com" is named by sites[0]`) {
		t.Errorf("two sites listing one host: Validate() = %v, want it refused", err)
	}
}
