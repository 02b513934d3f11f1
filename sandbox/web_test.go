package sandbox

import (
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"golang.org/x/net/publicsuffix"
)

func TestSitesAreClassifiableAndSpanSubdomains(t *testing.T) {
	w := NewWeb(DefaultConfig())
	classes := map[string]int{}
	langs := map[string]int{}
	hosts := 0
	seen := map[string]bool{}
	for _, s := range w.Sites() {
		classes[s.Class]++
		langs[s.Lang]++
		if len(s.Hosts) < 3 {
			t.Errorf("site %s has %d hosts, want www + ≥ 2 sections", s.Domain, len(s.Hosts))
		}
		if !strings.HasPrefix(s.Hosts[0], "www.") {
			t.Errorf("site %s: first host %s is not www", s.Domain, s.Hosts[0])
		}
		if s.Entry != "http://"+s.Hosts[0]+"/" {
			t.Errorf("site %s: entry %q", s.Domain, s.Entry)
		}
		tld := s.Domain[strings.LastIndexByte(s.Domain, '.')+1:]
		if s.Class != "soc" && s.Class != "web_"+tld {
			t.Errorf("site %s: class %s does not follow its TLD", s.Domain, s.Class)
		}
		if (s.Class == "soc") != (s.Search != "") {
			t.Errorf("site %s (%s): search template %q", s.Domain, s.Class, s.Search)
		}
		for _, h := range s.Hosts {
			hosts++
			if seen[h] {
				t.Errorf("host %s appears twice", h)
			}
			seen[h] = true
			reg, err := publicsuffix.EffectiveTLDPlusOne(h)
			if err != nil || reg != s.Domain {
				t.Errorf("host %s: registered domain %q (%v), want %s", h, reg, err, s.Domain)
			}
		}
	}
	if hosts != 60 {
		t.Errorf("%d hosts, want the default 60", hosts)
	}
	for _, c := range []string{"web_com", "web_net", "web_edu", "web_gov", "soc"} {
		if classes[c] == 0 {
			t.Errorf("no site of class %s: %v", c, classes)
		}
	}
	for _, l := range []string{"en", "zh", "ru"} {
		if langs[l] == 0 {
			t.Errorf("no site in language %s: %v", l, langs)
		}
	}
	if n := len(w.DeadHosts()); n == 0 {
		t.Error("no dead host names by default")
	}
}

func TestManyHostsAreCheap(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Hosts = 10000
	start := time.Now()
	w := NewWeb(cfg)
	n := 0
	for _, s := range w.Sites() {
		n += len(s.Hosts)
	}
	if n != 10000 || len(w.hosts) != 10000 {
		t.Fatalf("%d hosts in the site list, %d in the model, want 10000", n, len(w.hosts))
	}
	t.Logf("10,000 hosts generated in %v", time.Since(start))
}

func TestSameSeedSameWeb(t *testing.T) {
	a, b := NewWeb(DefaultConfig()), NewWeb(DefaultConfig())
	cfg := DefaultConfig()
	cfg.Seed = 99
	c := NewWeb(cfg)
	pa, pb, pc := a.Pages(), b.Pages(), c.Pages()
	if len(pa) != len(pb) {
		t.Fatalf("same seed: %d vs %d pages", len(pa), len(pb))
	}
	for i := range pa {
		if pa[i] != pb[i] {
			t.Fatalf("same seed, page %d differs: %+v vs %+v", i, pa[i], pb[i])
		}
	}
	if len(pc) > 0 && pc[0].URL == pa[0].URL {
		t.Errorf("seeds 0 and 99 give the same first site %s", pa[0].URL)
	}
}

var hrefRE = regexp.MustCompile(`href="([^"]+)"`)

// TestLinkTreeMatchesParent crawls the model breadth-first from its roots and checks
// that the page which first links to each page is its Parent, that every page is
// reachable, and that the tree is deep and spans hosts under one parent.
func TestLinkTreeMatchesParent(t *testing.T) {
	cfg := sbTestConfig()
	w := NewWeb(cfg)
	all := w.Pages()
	firstFrom := map[string]string{}
	var queue []string
	for _, p := range all {
		if p.Parent == "" {
			firstFrom[p.URL] = ""
			queue = append(queue, p.URL)
		}
	}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if info, _ := w.Page(u); info.Kind == KindDead {
			continue
		}
		status, _, body := w.Render(u, cfg.Epoch, 1)
		if status != 200 {
			t.Fatalf("render %s: status %d", u, status)
		}
		for _, m := range hrefRE.FindAllSubmatch(body, -1) {
			v := string(m[1])
			if _, ok := w.Page(v); !ok {
				t.Fatalf("%s links to %s, which the model does not serve", u, v)
			}
			if _, seen := firstFrom[v]; !seen {
				firstFrom[v] = u
				queue = append(queue, v)
			}
		}
	}
	maxDepth := 0
	entryChildHosts := map[string]map[string]bool{}
	for _, p := range all {
		from, reached := firstFrom[p.URL]
		if !reached {
			t.Errorf("page %s (%s) is not reachable from the roots", p.URL, p.Kind)
			continue
		}
		if from != p.Parent {
			t.Errorf("page %s: first linked from %q, Parent says %q", p.URL, from, p.Parent)
		}
		if w.Parent(p.URL) != p.Parent {
			t.Errorf("Parent(%s) = %q, PageInfo says %q", p.URL, w.Parent(p.URL), p.Parent)
		}
		maxDepth = max(maxDepth, p.Depth)
		if par, ok := w.Page(p.Parent); ok && par.Kind == KindEntry {
			if entryChildHosts[p.Parent] == nil {
				entryChildHosts[p.Parent] = map[string]bool{}
			}
			entryChildHosts[p.Parent][p.Host] = true
		}
	}
	if maxDepth < 3 {
		t.Errorf("tree depth %d, want ≥ 3", maxDepth)
	}
	for entry, hosts := range entryChildHosts {
		if len(hosts) < 2 {
			t.Errorf("children of %s span %d hosts, want ≥ 2", entry, len(hosts))
		}
	}
}

func TestAdjacent(t *testing.T) {
	w := NewWeb(sbTestConfig())
	s := w.sites[0]
	url := func(p page) string { return w.urlOf(p) }
	top0, top1 := page{h: topHost(s, 0), kind: pkTop, b: 0}, page{h: topHost(s, 1), kind: pkTop, b: 1}
	a11 := page{h: s.hosts[1], kind: pkArticle, a: 1, b: 1}
	a12 := page{h: s.hosts[1], kind: pkArticle, a: 1, b: 2}
	b11 := page{h: s.hosts[2], kind: pkArticle, a: 1, b: 1}
	other := page{h: w.sites[1].hosts[0], kind: pkEntry}
	for _, tc := range []struct {
		name string
		a, b string
		want bool
	}{
		{"same host, same listing", url(a11), url(a12), true},
		{"same host, different parents", url(page{h: s.hosts[1], kind: pkListing, a: 3}), url(a11), true},
		{"different hosts, same parent (top stories)", url(top0), url(top1), true},
		{"different hosts, different parents", url(a11), url(b11), false},
		{"two entries (roots)", url(page{h: s.hosts[0], kind: pkEntry}), url(other), false},
		{"port and case do not matter", strings.ToUpper(url(a11)[:10]) + url(a11)[10:], url(a12), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if topHost(s, 0) == topHost(s, 1) {
				t.Fatal("top stories 0 and 1 share a host; the fixture needs two")
			}
			if got := w.Adjacent(tc.a, tc.b); got != tc.want {
				t.Errorf("Adjacent(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

func TestLanguagesUseTheirScripts(t *testing.T) {
	w := NewWeb(DefaultConfig())
	for _, tc := range []struct {
		lang  string
		table *unicode.RangeTable
	}{{"zh", unicode.Han}, {"ru", unicode.Cyrillic}, {"en", unicode.Latin}} {
		t.Run(tc.lang, func(t *testing.T) {
			for _, s := range w.Sites() {
				if s.Lang != tc.lang {
					continue
				}
				art := sbPages(w, func(p PageInfo) bool { return p.Kind == KindArticle || p.Kind == KindPost })
				for _, p := range art {
					if !strings.Contains(p.Host, s.Domain) {
						continue
					}
					_, _, body := w.Render(p.URL, w.Epoch(), 1)
					text := articleText(body)
					n := 0
					for _, r := range text {
						if unicode.Is(tc.table, r) {
							n++
						}
					}
					if n < len([]rune(text))/3 {
						t.Errorf("%s (%s): only %d of %d runes in the script", p.URL, tc.lang, n, len([]rune(text)))
					}
					return
				}
			}
			t.Fatalf("no %s site with articles", tc.lang)
		})
	}
}

// articleText extracts the <article> element of a rendered page.
func articleText(body []byte) string {
	s := string(body)
	i, j := strings.Index(s, "<article>"), strings.Index(s, "</article>")
	if i < 0 || j < i {
		return ""
	}
	return s[i+len("<article>") : j]
}

func TestConfigValidation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*Config)
		want   string
	}{
		{"too few hosts", func(c *Config) { c.Hosts = 1 }, "Hosts"},
		{"zero scale", func(c *Config) { c.Scale = 0 }, "Scale"},
		{"public address", func(c *Config) { c.HTTPAddr = "0.0.0.0:0" }, "loopback"},
		{"unknown fault", func(c *Config) { c.Faults.Shares = map[string]float64{"gremlins": 0.1} }, "gremlins"},
		{"faults over 1", func(c *Config) { c.SetFaultShare(1.5) }, "fault"},
		{"rates reversed", func(c *Config) { c.Change.MinRate, c.Change.MaxRate = 2, 1 }, "MinRate"},
		{"negative gap", func(c *Config) { c.AntiBot.HumanGap = -time.Second }, "HumanGap"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tc.mutate(&cfg)
			err := cfg.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate() = %v, want an error naming %q", err, tc.want)
			}
			if _, err := Start(cfg); err == nil {
				t.Fatal("Start accepted an invalid config")
			}
		})
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
}
