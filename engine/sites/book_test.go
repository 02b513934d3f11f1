package sites

import (
	"net/url"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
)

// A site is what the operator declares. Nine news sites on the www., news. and
// blog. hosts of three subdomains of one organisation's domain stay nine sites (they
// used to be one, the first declared, which the master then dealt to one worker); a
// host none of them names is no one's (its registered domain is its site); a site
// alone on its registered domain covers the rest of it; a *.NAME pattern covers the
// hosts under NAME, and the longest pattern wins over a shorter one.
func TestSiteOfTakesTheMostSpecificDeclaration(t *testing.T) {
	t.Parallel()
	var list []config.SiteOptions
	for _, sub := range []string{"a", "b", "c"} {
		for _, h := range []string{"www", "news", "blog"} {
			list = append(list, config.SiteOptions{Name: h + "-" + sub, Kind: config.SiteNews, Entry: "https://" + h + "." + sub + ".example.com/"})
		}
	}
	list = append(list,
		config.SiteOptions{Name: "harbor", Kind: config.SiteNews, Entry: "https://harbor-times.com/"},
		config.SiteOptions{Name: "static", Kind: config.SiteNews, Entry: "https://www.static.example.org/",
			Hosts: []string{"*.static.example.org", "Media.Example.net"}},
		config.SiteOptions{Name: "img", Kind: config.SiteNews, Entry: "https://img.static.example.org/",
			Hosts: []string{"*.img.static.example.org"}},
		config.SiteOptions{Name: "chirp", Kind: config.SiteSocial, Search: "https://chirp.example/search?q={keyword}&page={page}", Keywords: []string{"flood"}},
	)
	o := config.DefaultOptions()
	o.Sites = list
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	b := FromOptions(&o)
	for _, tc := range []struct{ host, want string }{
		{"www.a.example.com", "www-a"},
		{"news.b.example.com", "news-b"},
		{"BLOG.C.example.com", "blog-c"},
		{"img.a.example.com", ""}, // under a domain nine sites share, named by none
		{"example.com", ""},
		{"harbor-times.com", "harbor"},
		{"live.harbor-times.com", "harbor"}, // the rest of the domain only harbor is on
		{"cdn.static.example.org", "static"},
		{"media.example.net", "static"},
		{"img.static.example.org", "img"},   // its entry's host, over static's *.static.example.org
		{"x.img.static.example.org", "img"}, // the longer pattern wins
		{"static.example.org", ""},          // *.NAME is not NAME, and static and img share example.org
		{"chirp.example", "chirp"},          // a social site's search host
		{"elsewhere.test", ""},
	} {
		got := ""
		if s := b.SiteOf(tc.host); s != nil {
			got = s.Name
		}
		if got != tc.want {
			t.Errorf("SiteOf(%q) = %q, want %q", tc.host, got, tc.want)
		}
	}
}

// A class a site declares is the class of the hosts that site holds, not of its
// registered domain: of two sites of one organisation, www. declaring web_gov, the
// blog. beside it keeps the class of its suffix. A site alone on its domain, or a
// social site, still gives its class to the rest of the domain.
func TestDeclaredClassFollowsTheSitesHosts(t *testing.T) {
	t.Parallel()
	o := config.DefaultOptions()
	o.Sites = []config.SiteOptions{
		{Name: "www-a", Kind: config.SiteNews, Entry: "https://www.a.example.com/", Class: revisit.ClassGov},
		{Name: "blog-a", Kind: config.SiteNews, Entry: "https://blog.a.example.com/"},
		{Name: "harbor", Kind: config.SiteNews, Entry: "https://www.harbor-times.com/", Class: revisit.ClassEdu},
		{Name: "chirp", Kind: config.SiteSocial, Search: "https://search.chirp.example/q?q={keyword}&page={page}", Keywords: []string{"flood"}},
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	var c revisit.Classifier
	FromOptions(&o).Declare(&c)
	for host, want := range map[string]string{
		"www.a.example.com":     revisit.ClassGov,
		"blog.a.example.com":    revisit.ClassCom, // its own site's (none: by suffix), not www-a's
		"cdn.a.example.com":     revisit.ClassCom, // named by neither site of a.example.com
		"live.harbor-times.com": revisit.ClassEdu, // the rest of harbor's domain
		"search.chirp.example":  revisit.ClassSocial,
		"users.chirp.example":   revisit.ClassSocial,
	} {
		if got := c.Class(&url.URL{Host: host}); got != want {
			t.Errorf("class of %s = %s, want %s", host, got, want)
		}
	}
}
