package engine

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/sites"
)

// sitesExample is the config snippet offered for the README: shared keywords, one
// news site, one social site, the round period.
const sitesExample = `
keywords: [flood, 台风]
sites:
  - name: harbor
    kind: news
    entry: https://harbor-times.com/
  - name: ministry
    kind: news
    entry: https://water.example.org/
    class: web_gov
  - name: chirp
    kind: social
    search: "https://www.chirp.example/search?q={keyword}&page={page}"
    pages: 3
    keywords: [storm surge]
rounds:
  every: 30m
`

func TestSitesConfigFromYAML(t *testing.T) {
	t.Parallel()
	o := testDefaults()
	dec := yaml.NewDecoder(strings.NewReader(sitesExample))
	dec.KnownFields(true)
	if err := dec.Decode(&o); err != nil {
		t.Fatal(err)
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(o.Sites) != 3 || o.Rounds.Every != 30*time.Minute || len(o.Keywords) != 2 {
		t.Fatalf("decoded sites %+v rounds %+v keywords %v", o.Sites, o.Rounds, o.Keywords)
	}
	b := sites.FromOptions(&o)
	var c revisit.Classifier
	b.Declare(&c)
	for _, tc := range []struct{ url, class string }{
		{"https://m.chirp.example/p/1", revisit.ClassSocial}, // subdomain of a social site
		{"https://water.example.org/a", revisit.ClassGov},    // declared class override
		{"https://harbor-times.com/a", revisit.ClassCom},     // by public suffix
	} {
		u, _ := url.Parse(tc.url)
		if got := c.Class(u); got != tc.class {
			t.Errorf("class of %s = %s, want %s", tc.url, got, tc.class)
		}
	}
	if got := b.Keywords("harbor"); strings.Join(got, ",") != "flood,台风" {
		t.Errorf("news site keywords = %v, want the shared ones", got)
	}
	if got := b.Keywords("chirp"); strings.Join(got, ",") != "storm surge" {
		t.Errorf("social site keywords = %v, want its own", got)
	}
	// A strict decoder names a misspelt site key.
	bad := yaml.NewDecoder(strings.NewReader("sites:\n  - name: x\n    kind: news\n    entyr: https://a.com/\n"))
	bad.KnownFields(true)
	if err := bad.Decode(&o); err == nil || !strings.Contains(err.Error(), "entyr") {
		t.Errorf("misspelt key: %v", err)
	}
}

func TestSearchURLsExpandedPerKeywordAndPage(t *testing.T) {
	t.Parallel()
	o := testDefaults()
	o.Keywords = []string{"shared"}
	o.Sites = []config.SiteOptions{
		{Name: "n", Kind: config.SiteNews, Entry: "https://News.example.com/"},
		{Name: "s", Kind: config.SiteSocial, Search: "https://s.example/search?q={keyword}&page={page}", Pages: 2,
			Keywords: []string{"台风", "storm surge"}},
		{Name: "t", Kind: config.SiteSocial, Search: "https://t.example/find/{keyword}", Pages: 1},
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range sites.FromOptions(&o).Sources() {
		got = append(got, it.Site+"|"+it.Keyword+"|"+it.URL)
	}
	want := []string{
		"n||https://news.example.com/",
		"s|台风|https://s.example/search?q=%E5%8F%B0%E9%A3%8E&page=1",
		"s|台风|https://s.example/search?q=%E5%8F%B0%E9%A3%8E&page=2",
		"s|storm surge|https://s.example/search?q=storm+surge&page=1",
		"s|storm surge|https://s.example/search?q=storm+surge&page=2",
		"t|shared|https://t.example/find/shared", // no keywords of its own: the shared ones
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("sources:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
