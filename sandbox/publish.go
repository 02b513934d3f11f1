package sandbox

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"
)

// The publishing model: news sites put out new articles at random,
// heavy-tailed times, and announce them — or not — in a feed or a sitemap. Each
// publishing site draws its mean rate log-uniformly from PublishMinRate..PublishMaxRate
// articles per web day, and its gaps from a Pareto law (shape 1.5) with that mean: long
// quiet spells and bursts, as newsrooms publish. An article appears on one of the
// site's hosts and on the entry page of that host and of www (the latest
// PublishEntryLinks of each), and in the site's feed (latest PublishFeedItems) or
// sitemap (latest PublishSitemapURLs; a news sitemap holds the last two days, as
// Google asks). The truth is Published: every article with its publish time.

// Announce says how a publishing site announces its articles.
type Announce string

// Announce modes, assigned round-robin by site index over the non-social sites.
const (
	AnnounceRSS         Announce = "rss"          // /feed.xml, RSS 2.0, <link rel=alternate> on the entry
	AnnounceAtom        Announce = "atom"         // /atom.xml, Atom, <link rel=alternate> on the entry
	AnnounceSitemap     Announce = "sitemap"      // /sitemap.xml urlset with honest lastmod, in robots.txt
	AnnounceNewsSitemap Announce = "news_sitemap" // /sitemap-news.xml with news:publication_date, in robots.txt
	AnnounceIndex       Announce = "index"        // /sitemap_index.xml -> news + archive sitemaps, in robots.txt
	AnnounceLyingLM     Announce = "lying"        // /sitemap.xml whose lastmod is always the serving time (not declared)
	AnnounceNone        Announce = "none"         // neither feed nor sitemap
)

var announceOrder = []Announce{AnnounceRSS, AnnounceSitemap, AnnounceNone, AnnounceNewsSitemap, AnnounceAtom, AnnounceIndex, AnnounceLyingLM}

// Publishing parameters.
const (
	PublishMinRate     = 2.0  // articles per web day, slowest site
	PublishMaxRate     = 96.0 // fastest site
	PublishEntryLinks  = 20
	PublishFeedItems   = 50
	PublishSitemapURLs = 1000
	newsSitemapWindow  = 2 * webDay
	// PublishBacklog is how long before the epoch sites have been publishing: a
	// crawl starts on sites with a past, more of it than their entry pages show.
	PublishBacklog = 3 * webDay
	paretoShape    = 1.5
)

// Article is one published article.
type Article struct {
	URL       string
	Host      string
	Published time.Time // web time
}

// PublishingSite is a site's publishing profile.
type PublishingSite struct {
	Domain   string
	Entry    string   // www entry page URL
	Hosts    []string // www first
	Announce Announce
	Rate     float64 // mean articles per web day
	// Feeds and Sitemaps are the URLs the site announces (feeds through <link
	// rel=alternate> on its entry pages, sitemaps in robots.txt); the lying sitemap is
	// at /sitemap.xml, undeclared, where a crawler looks when robots.txt names none.
	Feeds    []string
	Sitemaps []string
}

type publisher struct {
	mu       sync.Mutex
	site     *website
	rate     float64
	announce Announce
	rng      prng
	arts     []Article // in publish order; extended lazily
}

func (w *Web) publishers() map[string]*publisher {
	w.publishing.once.Do(func() { w.publishing.m = w.newPublishers() })
	return w.publishing.m
}

func (w *Web) newPublishers() map[string]*publisher {
	m := map[string]*publisher{}
	n := 0
	for _, s := range w.sites {
		if s.social {
			continue
		}
		k := mix(s.key, 0x9b11)
		u := unit(k)
		rate := math.Exp(math.Log(PublishMinRate) + u*(math.Log(PublishMaxRate)-math.Log(PublishMinRate)))
		m[s.Domain] = &publisher{site: s, rate: rate, announce: announceOrder[n%len(announceOrder)], rng: newPRNG(mix(k, 1))}
		n++
	}
	return m
}

// PublishingSites lists the sites that publish, in generation order.
func (w *Web) PublishingSites() []PublishingSite {
	ps := w.publishers()
	var out []PublishingSite
	for _, s := range w.sites {
		p := ps[s.Domain]
		if p == nil {
			continue
		}
		www := "http://" + s.hosts[0].name + w.portSuffix
		ws := PublishingSite{Domain: s.Domain, Entry: s.Entry, Hosts: append([]string(nil), s.Hosts...), Announce: p.announce, Rate: p.rate}
		switch p.announce {
		case AnnounceRSS:
			ws.Feeds = []string{www + "/feed.xml"}
		case AnnounceAtom:
			ws.Feeds = []string{www + "/atom.xml"}
		case AnnounceSitemap, AnnounceLyingLM:
			ws.Sitemaps = []string{www + "/sitemap.xml"}
		case AnnounceNewsSitemap:
			ws.Sitemaps = []string{www + "/sitemap-news.xml"}
		case AnnounceIndex:
			ws.Sitemaps = []string{www + "/sitemap_index.xml"}
		}
		out = append(out, ws)
	}
	return out
}

// extend publishes articles until one lies after t.
func (p *publisher) extend(w *Web, t time.Time) {
	mean := float64(webDay) / p.rate
	scale := mean * (paretoShape - 1) / paretoShape // Pareto(x_m, α) has mean α x_m/(α-1)
	last := w.cfg.Epoch.Add(-w.publishBacklog())
	if n := len(p.arts); n > 0 {
		last = p.arts[n-1].Published
	}
	for !last.After(t) {
		gap := scale / math.Pow(1-p.rng.float(), 1/paretoShape)
		last = last.Add(time.Duration(gap))
		h := p.site.hosts[p.rng.intn(len(p.site.hosts))]
		i := len(p.arts)
		p.arts = append(p.arts, Article{
			URL:       fmt.Sprintf("http://%s%s/story/%d-%s", h.name, w.portSuffix, i, slugOf(i)),
			Host:      h.name,
			Published: last,
		})
	}
}

func slugOf(i int) string {
	words := [...]string{"flood", "market", "council", "storm", "harbor", "vote", "school", "rail", "fire", "budget"}
	return words[i%len(words)] + "-" + words[(i/10)%len(words)]
}

// publishBacklog is Config.PublishBacklog, or its default.
func (w *Web) publishBacklog() time.Duration {
	if w.cfg.PublishBacklog > 0 {
		return w.cfg.PublishBacklog
	}
	return PublishBacklog
}

// articles returns the site's articles published in [from, to], oldest first.
func (w *Web) articles(domain string, from, to time.Time) []Article {
	p := w.publishers()[domain]
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.extend(w, to)
	i := sort.Search(len(p.arts), func(i int) bool { return !p.arts[i].Published.Before(from) })
	j := sort.Search(len(p.arts), func(i int) bool { return p.arts[i].Published.After(to) })
	return append([]Article(nil), p.arts[i:j]...)
}

// Published returns the site's articles published in [from, to] (web times), oldest
// first: the truth a discovery benchmark measures against.
func (w *Web) Published(domain string, from, to time.Time) []Article {
	return w.articles(domain, from, to)
}

// latest returns up to n articles of the site published up to at (newest first),
// on host h only unless h is "".
func (w *Web) latest(domain, host string, at time.Time, n int, since time.Time) []Article {
	all := w.articles(domain, w.cfg.Epoch.Add(-w.publishBacklog()), at)
	var out []Article
	for i := len(all) - 1; i >= 0 && len(out) < n; i-- {
		a := all[i]
		if a.Published.Before(since) {
			break
		}
		if host == "" || host == a.Host || strings.HasPrefix(host, "www.") {
			out = append(out, a)
		}
	}
	return out
}

// PublishingEntryLinks returns the article links on a host's entry page at web time
// at: the latest PublishEntryLinks articles of that host (all hosts for www).
func (w *Web) PublishingEntryLinks(host string, at time.Time) []string {
	h := w.hostOf(host)
	if h == nil || w.publishers()[h.site.Domain] == nil {
		return nil
	}
	var out []string
	for _, a := range w.latest(h.site.Domain, h.name, at, PublishEntryLinks, time.Time{}) {
		out = append(out, a.URL)
	}
	return out
}

// RenderDiscovery renders the feed or sitemap at url as served at web time at; ok is
// false when the URL is not one the site publishes.
func (w *Web) RenderDiscovery(url string, at time.Time) (body []byte, contentType string, ok bool) {
	rest, found := strings.CutPrefix(url, "http://")
	if !found {
		return nil, "", false
	}
	hostport, path, _ := strings.Cut(rest, "/")
	path = "/" + path
	h := w.hostOf(hostport)
	if h == nil || h.idx != 0 {
		return nil, "", false
	}
	p := w.publishers()[h.site.Domain]
	if p == nil {
		return nil, "", false
	}
	www := "http://" + h.name + w.portSuffix
	var b strings.Builder
	switch {
	case path == "/feed.xml" && p.announce == AnnounceRSS:
		fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>%s</title><link>%s/</link>`, h.site.Name, www)
		for _, a := range w.latest(h.site.Domain, "", at, PublishFeedItems, time.Time{}) {
			fmt.Fprintf(&b, "\n<item><title>%s</title><link>%s</link><guid>%s</guid><pubDate>%s</pubDate></item>", a.URL, a.URL, a.URL, w.date(a.Published).UTC().Format(time.RFC1123Z))
		}
		b.WriteString("</channel></rss>")
		return []byte(b.String()), "application/rss+xml", true
	case path == "/atom.xml" && p.announce == AnnounceAtom:
		fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>%s</title><id>%s/</id><updated>%s</updated>`, h.site.Name, www, w.date(at).UTC().Format(time.RFC3339))
		for _, a := range w.latest(h.site.Domain, "", at, PublishFeedItems, time.Time{}) {
			fmt.Fprintf(&b, "\n<entry><title>%s</title><id>%s</id><link href=\"%s\"/><published>%s</published><updated>%s</updated></entry>", a.URL, a.URL, a.URL, w.date(a.Published).UTC().Format(time.RFC3339), w.date(a.Published).UTC().Format(time.RFC3339))
		}
		b.WriteString("</feed>")
		return []byte(b.String()), "application/atom+xml", true
	case path == "/sitemap_index.xml" && p.announce == AnnounceIndex:
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		fmt.Fprintf(&b, "<sitemap><loc>%s/sitemap-news.xml</loc><lastmod>%s</lastmod></sitemap>", www, w.date(at).UTC().Format(time.RFC3339))
		fmt.Fprintf(&b, "<sitemap><loc>%s/sitemap-archive.xml</loc></sitemap></sitemapindex>", www)
		return []byte(b.String()), "application/xml", true
	case path == "/sitemap-news.xml" && (p.announce == AnnounceNewsSitemap || p.announce == AnnounceIndex):
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">`)
		for _, a := range w.latest(h.site.Domain, "", at, PublishSitemapURLs, at.Add(-newsSitemapWindow)) {
			fmt.Fprintf(&b, "\n<url><loc>%s</loc><news:news><news:publication><news:name>%s</news:name><news:language>en</news:language></news:publication><news:publication_date>%s</news:publication_date><news:title>%s</news:title><news:keywords>%s</news:keywords></news:news></url>",
				a.URL, h.site.Name, w.date(a.Published).UTC().Format(time.RFC3339), a.URL, strings.Join(h.site.keywords, ", "))
		}
		b.WriteString("</urlset>")
		return []byte(b.String()), "application/xml", true
	case (path == "/sitemap.xml" && (p.announce == AnnounceSitemap || p.announce == AnnounceLyingLM)) ||
		(path == "/sitemap-archive.xml" && p.announce == AnnounceIndex):
		b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		until := at
		if path == "/sitemap-archive.xml" {
			until = at.Add(-newsSitemapWindow)
		}
		for _, a := range w.latest(h.site.Domain, "", until, PublishSitemapURLs, time.Time{}) {
			lm := a.Published
			if p.announce == AnnounceLyingLM {
				lm = at // the lie: every page "changed" just now
			}
			fmt.Fprintf(&b, "\n<url><loc>%s</loc><lastmod>%s</lastmod></url>", a.URL, w.date(lm).UTC().Format(time.RFC3339))
		}
		b.WriteString("</urlset>")
		return []byte(b.String()), "application/xml", true
	}
	return nil, "", false
}
