package fake

import (
	"fmt"
	"slices"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// buildSites is the Sites pane's data: three news sites and two social
// sites a few rounds into a crawl, one of them at its page budget.
func buildSites() *view.SitesView {
	v := &view.SitesView{Round: 7, Every: time.Hour}
	news := []string{"capital-digest.com", "copper-register.net", "valley-academy.edu"}
	classes := []string{"web_com", "web_net", "web_edu"}
	for i, d := range news {
		r := view.SiteRow{
			Name: d, Kind: config.SiteNews, Class: classes[i], Entry: "http://www." + d + "/",
			Keywords: []string{"flood", "台风"}, Stored: int64(1200 + i*731), NewHour: 3 + i*4, NewDay: 40 + i*17,
			LastRound: Epoch.Add(-time.Duration(4+i*9) * time.Minute), PublishDelay: time.Duration(7+i*11) * time.Minute,
			BudgetUsed: 120 + i*40, Budget: []int{0, 200, 0}[i],
		}
		if i == 1 { // a sitemap its front page covers: read daily only
			r.Sitemaps = []string{"http://www." + d + "/sitemap.xml"}
			r.Covered = map[string]string{r.Sitemaps[0]: r.Entry}
			// Keyword results only from its last week's pages (:window).
			r.WithinDays, r.OutOfWindow = 7, 12
		}
		if i == 2 {
			r.PublishDelay = 0 // no page states a publish time
			r.Held = 35
			// A feed served as an image: it yielded nothing, and the pane says why.
			r.Problems = map[string]string{"http://www." + d + "/feed": "content_type: neither a page nor a feed or sitemap: it starts \"\\x89PNG\""}
		}
		v.Sites = append(v.Sites, r)
	}
	for i, name := range []string{"chirp", "tattle"} {
		v.Sites = append(v.Sites, view.SiteRow{
			Name: name, Kind: config.SiteSocial, Class: "soc",
			Entry:    fmt.Sprintf("http://www.%s-social.net/search?q={keyword}&page={page}", name),
			Keywords: []string{"storm surge", "flood"}[:1+i], Stored: int64(800 + i*90), NewHour: 12 - i*5, NewDay: 130 + i*20,
			LastRound: Epoch.Add(-time.Duration(2+i) * time.Minute), BudgetUsed: 50 + i*25, Budget: 75,
		})
	}
	return v
}

func cloneSites(v *view.SitesView) *view.SitesView {
	return cloned(v, func(cp *view.SitesView) {
		cp.Sites = clonedRows(cp.Sites, func(r *view.SiteRow) { r.Keywords = slices.Clone(r.Keywords) })
	})
}

// Steer makes a steering change on the fake crawl's sites the way the engine would
// (a keyword shows at once), and records the call.
func (c *Control) Steer(s steer.Change) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, "Steer("+s.String()+")")
	if c.snap.Sites == nil {
		c.snap.Sites = &view.SitesView{Every: time.Hour}
	}
	find := func(name string) *view.SiteRow {
		for i := range c.snap.Sites.Sites {
			if c.snap.Sites.Sites[i].Name == name {
				return &c.snap.Sites.Sites[i]
			}
		}
		return nil
	}
	switch s.Op {
	case steer.KeywordAdd:
		r := find(s.Site)
		if r == nil {
			return "", fmt.Errorf("keyword add: no site named %q", s.Site)
		}
		r.Keywords = append(r.Keywords, s.Keywords...)
		return fmt.Sprintf("keyword %q added to %s", s.Keywords[0], s.Site), nil
	case steer.SeedAdd:
		return "seed " + s.URL + " queued", nil
	case steer.Budget:
		if s.Host != "" {
			return s.String() + ": done", nil
		}
		if s.Per == steer.BudgetTotal {
			if r := find(s.Site); r != nil {
				r.BudgetTotal = s.N
			}
			return fmt.Sprintf("budget of %s: %d pages in total", s.Site, s.N), nil
		}
		if r := find(s.Site); r != nil {
			r.Budget = s.N
		}
		return fmt.Sprintf("budget of %s: %d pages per round", s.Site, s.N), nil
	}
	return s.String() + ": done", nil
}
