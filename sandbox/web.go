package sandbox

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Web is the deterministic model of the sandbox web: its sites and hosts, the link tree,
// the change model and the page content. It needs no servers: benchmarks simulate a
// crawl against it with their own clock, and the sandbox's HTTP server renders from it.
type Web struct {
	cfg        Config
	port       int
	portSuffix string     // ":PORT" in every URL, "" when the model has no server
	clock      *webClock  // maps web time to real time; nil: times stay web times
	sites      []*website // in generation order
	hosts      map[string]*vhost
	dead       map[string]*deadHost
	domains    map[string]*website
	faultCuts  []faultCut
	changes    changeCache
	publishing struct { // the publishing model (publish.go), built on first use
		once sync.Once
		m    map[string]*publisher
	}
}

// Site is one site of the sandbox web as the sandbox prints it.
type Site struct {
	// Name is a display name ("Harbor Times").
	Name string `json:"name"`
	// Domain is the registered domain ("harbor-times.com").
	Domain string `json:"domain"`
	// Class is the M2/M3 page class: "web_com", "web_net", "web_edu", "web_gov" or "soc".
	Class string `json:"class"`
	// Hosts are the site's virtual hosts, www first.
	Hosts []string `json:"hosts"`
	// Entry is the entry page URL, with the HTTP port.
	Entry string `json:"entry"`
	// Search is the site-search URL template of social sites, with {keyword} and {page}.
	Search string `json:"search,omitempty"`
	// Keywords are the site's topics: search terms on social sites.
	Keywords []string `json:"keywords"`
	// Lang is the language of the site's text: "en", "zh" or "ru".
	Lang string `json:"lang"`
}

type lang uint8

const (
	langEN lang = iota
	langZH
	langRU
)

// String is the language's code in the site list.
func (l lang) String() string { return [...]string{"en", "zh", "ru"}[l] }

type website struct {
	Site
	idx      int
	key      uint64
	social   bool
	lang     lang
	hosts    []*vhost // [0] is www
	dead     []*deadHost
	cross    []int // other sites linked from the entry and articles
	keywords []string
}

type vhost struct {
	name       string
	site       *website
	idx        int // 0 = www, 1.. = sections
	key        uint64
	ttl        time.Duration // web
	crawlDelay bool
	banStyle   banStyle
	searchBan  bool // past the search quota this host bans instead of answering 429
}

type deadKind uint8

const (
	deadNXDomain deadKind = iota
	deadServFail
	deadTimeout
)

type deadHost struct {
	name string
	site *website
	kind deadKind
}

// NewWeb builds the model of cfg without starting servers. URLs carry the port of
// cfg.HTTPAddr, or none when it is 0. Times it reports are web times. It panics if cfg
// is invalid; call cfg.Validate first for a friendly error.
func NewWeb(cfg Config) *Web {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	port := 0
	if i := strings.LastIndexByte(cfg.HTTPAddr, ':'); i >= 0 {
		port, _ = strconv.Atoi(cfg.HTTPAddr[i+1:])
	}
	return buildWeb(cfg, port, nil)
}

func buildWeb(cfg Config, port int, clock *webClock) *Web {
	w := &Web{
		cfg:     cfg,
		port:    port,
		clock:   clock,
		hosts:   make(map[string]*vhost, cfg.Hosts),
		dead:    map[string]*deadHost{},
		domains: map[string]*website{},
	}
	if port > 0 {
		w.portSuffix = ":" + strconv.Itoa(port)
	}
	w.faultCuts = makeFaultCuts(cfg.Faults.Shares)
	w.changes.init()
	w.generateSites()
	w.generateDead()
	for _, s := range w.sites {
		s.Entry = w.urlOf(page{h: s.hosts[0], kind: pkEntry})
		if s.social {
			s.Search = "http://" + s.hosts[0].name + w.portSuffix + "/search?q={keyword}&page={page}"
		}
	}
	return w
}

// generateSites lays out sites until exactly cfg.Hosts virtual hosts exist.
func (w *Web) generateSites() {
	cfg := w.cfg
	seed := mix(uint64(cfg.Seed), 0x5173)
	namer := siteNamer{used: map[string]bool{}}
	remaining := cfg.Hosts
	for i := 0; remaining > 0; i++ {
		rng := newPRNG(mix(seed, uint64(i)))
		n := 1 + rng.between(cfg.Layout.SectionsMin, cfg.Layout.SectionsMax)
		if n > remaining {
			n = remaining
		}
		if remaining-n == 1 { // never leave a site with only www
			if n > 2 {
				n--
			} else {
				n++
			}
		}
		remaining -= n
		w.sites = append(w.sites, w.newSite(i, n, &rng, &namer))
	}
	for _, s := range w.sites {
		rng := newPRNG(mix(s.key, 0xc055))
		s.cross = pickOthers(&rng, s.idx, len(w.sites), cfg.Layout.CrossSiteLinks)
	}
}

func (w *Web) newSite(i, nHosts int, rng *prng, namer *siteNamer) *website {
	cfg := w.cfg
	s := &website{idx: i, key: mix(uint64(cfg.Seed), 0x517e, uint64(i))}
	// The first sites cover every class and language so even a small web shows them all.
	s.social = i == 4 || (i > 4 && rng.float() < cfg.Layout.SocialShare)
	tld := [...]string{"com", "gov", "edu", "net"}[rng.intn(4)]
	if i < 4 {
		tld = [...]string{"com", "gov", "edu", "net"}[i]
	}
	switch u := rng.float(); {
	case i == 1 && cfg.Layout.ChineseShare > 0:
		s.lang = langZH
	case i == 2 && cfg.Layout.RussianShare > 0:
		s.lang = langRU
	case i < 3:
		s.lang = langEN
	case u < cfg.Layout.ChineseShare:
		s.lang = langZH
	case u < cfg.Layout.ChineseShare+cfg.Layout.RussianShare:
		s.lang = langRU
	}
	var base string
	var sections []string
	switch {
	case s.social:
		tld = [...]string{"com", "net"}[rng.intn(2)]
		base = socialFirst[rng.intn(len(socialFirst))] + "-" + socialSecond[rng.intn(len(socialSecond))]
		sections = socialSections
	case tld == "edu":
		base = newsFirst[rng.intn(len(newsFirst))] + "-" + eduSecond[rng.intn(len(eduSecond))]
		sections = eduSections
	case tld == "gov":
		base = newsFirst[rng.intn(len(newsFirst))] + "-" + govSecond[rng.intn(len(govSecond))]
		sections = govSections
	default:
		base = newsFirst[rng.intn(len(newsFirst))] + "-" + newsSecond[rng.intn(len(newsSecond))]
		sections = newsSections
	}
	s.Domain = namer.unique(base, tld)
	s.Name = title(base)
	s.Class = siteClass(s.social, tld)
	s.Lang = s.lang.String()
	w.domains[s.Domain] = s

	// Sections: a random subset, in a random order, of the class's section names.
	order := permutation(rng, len(sections))
	for j := 0; j < nHosts; j++ {
		name := "www." + s.Domain
		if j > 0 {
			name = sections[order[(j-1)%len(sections)]] + "." + s.Domain
			if j > len(sections) {
				name = sections[order[(j-1)%len(sections)]] + strconv.Itoa(j) + "." + s.Domain
			}
		}
		hk := mix(s.key, strKey(name))
		h := &vhost{
			name: name, site: s, idx: j, key: hk,
			ttl:        cfg.DNS.TTLs[int(splitmix(hk^0x771)%uint64(len(cfg.DNS.TTLs)))],
			crawlDelay: unit(hk^0xde1a) < cfg.Robots.CrawlDelayShare,
			banStyle:   banStyle(splitmix(hk^0xba4) % 3),
			searchBan:  unit(hk^0x5ea4) < cfg.Search.BanShare,
		}
		s.hosts = append(s.hosts, h)
		s.Hosts = append(s.Hosts, name)
		w.hosts[name] = h
	}
	kw := permutation(rng, len(keywordPool))
	for j := 0; j < cfg.Layout.Keywords; j++ {
		s.keywords = append(s.keywords, keywordPool[kw[j]])
	}
	s.Keywords = s.keywords
	return s
}

// generateDead adds the dead host names: subdomains of real sites that fail in DNS.
func (w *Web) generateDead() {
	counts := []struct {
		kind  deadKind
		share float64
	}{{deadNXDomain, w.cfg.DNS.NXDomainShare}, {deadServFail, w.cfg.DNS.ServFailShare}, {deadTimeout, w.cfg.DNS.TimeoutShare}}
	j := 0
	for _, c := range counts {
		n := int(math.Round(c.share * float64(w.cfg.Hosts)))
		for k := 0; k < n; k++ {
			s := w.sites[int(splitmix(mix(uint64(w.cfg.Seed), 0xdead, uint64(j)))%uint64(len(w.sites)))]
			name := ""
			for try := 0; name == "" || w.hosts[name] != nil || w.dead[name] != nil; try++ {
				name = deadPrefixes[(j+try)%len(deadPrefixes)]
				if try >= len(deadPrefixes) {
					name += strconv.Itoa(try)
				}
				name += "." + s.Domain
			}
			d := &deadHost{name: name, site: s, kind: c.kind}
			s.dead = append(s.dead, d)
			w.dead[name] = d
			j++
		}
	}
}

// permutation returns a random permutation of 0..n-1.
func permutation(rng *prng, n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := rng.intn(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// pickOthers picks up to k distinct indices in [0,n) other than self.
func pickOthers(rng *prng, self, n, k int) []int {
	if k > n-1 {
		k = n - 1
	}
	seen := map[int]bool{self: true}
	var out []int
	for len(out) < k {
		j := rng.intn(n)
		if !seen[j] {
			seen[j] = true
			out = append(out, j)
		}
	}
	return out
}

// Sites lists the sites, in generation order.
func (w *Web) Sites() []Site {
	out := make([]Site, len(w.sites))
	for i, s := range w.sites {
		out[i] = s.Site
		out[i].Hosts = append([]string(nil), s.Hosts...)
		out[i].Keywords = append([]string(nil), s.Keywords...)
	}
	return out
}

// Config returns the configuration the model was built from.
func (w *Web) Config() Config { return w.cfg }

// Epoch is the web time at which every page is at version 0.
func (w *Web) Epoch() time.Time { return w.cfg.Epoch }

// Port is the HTTP port URLs carry (0: none).
func (w *Web) Port() int { return w.port }

// DeadHosts lists the dead host names with how they fail in DNS: "nxdomain",
// "servfail" or "timeout".
func (w *Web) DeadHosts() map[string]string {
	out := make(map[string]string, len(w.dead))
	for name, d := range w.dead {
		out[name] = [...]string{"nxdomain", "servfail", "timeout"}[d.kind]
	}
	return out
}

// HostClass returns the class of a host name ("web_com", ..., "soc"), or "" if the
// host is not part of the sandbox.
func (w *Web) HostClass(host string) string {
	if h := w.hostOf(host); h != nil {
		return h.site.Class
	}
	if d := w.dead[normalizeHost(host)]; d != nil {
		return d.site.Class
	}
	return ""
}

// hostOf finds a live virtual host from a Host header or URL host (port and case ignored).
func (w *Web) hostOf(hostport string) *vhost {
	if h, ok := w.hosts[hostport]; ok { // fast path: already normalised
		return h
	}
	return w.hosts[normalizeHost(hostport)]
}

// normalizeHost lower-cases a host and drops a port and a trailing dot.
func normalizeHost(hostport string) string {
	h := hostport
	if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.Contains(h[i:], "]") {
		h = h[:i]
	}
	h = strings.TrimSuffix(h, ".")
	for i := 0; i < len(h); i++ {
		if c := h[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(h)
		}
	}
	return h
}
