package steer

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/sites"
)

// apply makes one change. live is false while replaying at start: the book, scope
// and budgets change, and the engine's Start queues what they lead to. Caller
// holds r.mu.
func (r *Steerer) apply(s *Change, live bool) (string, error) {
	switch s.Op {
	case SeedAdd:
		return r.seed(s, live)
	case SiteAdd:
		return r.siteAdd(s, live)
	case SiteRm:
		return r.siteRm(s, live)
	case KeywordAdd:
		return r.keywordAdd(s, live)
	case KeywordRm:
		return r.keywordRm(s, live)
	case Budget:
		return r.budget(s, live)
	case Window:
		return r.window(s)
	}
	return "", fmt.Errorf("unknown steering operation %q", s.Op)
}

// seed adds a seed: refused when malformed, on a blocked (private) address, or
// already in the crawl; nothing is queued then.
func (r *Steerer) seed(s *Change, live bool) (string, error) {
	n, err := frontier.Normalize(strings.TrimSpace(s.URL))
	if err != nil {
		return "", fmt.Errorf("seed add: %q is not a URL to crawl: %v (give an absolute http(s) URL); nothing queued", s.URL, err)
	}
	if !live {
		r.c.AddScope(n)
		return "seed " + n, nil
	}
	if err := r.c.CheckTarget(n); err != nil {
		return "", fmt.Errorf("seed add: %v; nothing queued", err)
	}
	if err := r.c.QueueSeed(n); err != nil {
		return "", err
	}
	s.URL = n
	return "seed " + n + " queued", nil
}

// siteAdd declares a site: a news site named after its entry's registered domain
// (after its entry's host when a declared site holds that domain already), a social
// site under the name given. A site holds the hosts it names, as a config's sites do
// (sites.Book.SiteOf: the most specific declaration wins), so a news site added on
// another host of a declared site's domain is a site of its own, not refused or
// merged. Its entry or searches are queued at once (on a master, new units go to the
// worker holding the fewest, seed 003).
func (r *Steerer) siteAdd(s *Change, live bool) (string, error) {
	book := r.c.Sites()
	site := config.SiteOptions{Name: s.Site, Kind: s.Kind, Entry: s.URL, Search: s.Search, Keywords: s.Keywords}
	if s.Kind == config.SiteNews {
		if site.Name == "" { // named at its first apply; a replay keeps the name
			site.Name = newsSiteName(book, s.URL)
		}
		s.Site = site.Name
	}
	if strings.ContainsFunc(site.Name, unicode.IsSpace) {
		// Steering commands (site rm NAME, keyword add SITE WORD) split on spaces:
		// such a site could be added but never steered again. (A config's site
		// may have one: it is crawled, and steered from the config.)
		return "", fmt.Errorf("site add: name %q has a space; steering commands split on spaces: use - or _ instead", site.Name)
	}
	if book.Named(site.Name) != nil {
		return "", fmt.Errorf("site add: a site named %q is declared already (keyword add %s WORD adds a keyword; site rm %s first to replace it)", site.Name, site.Name, site.Name)
	}
	check := config.Options{Sites: []config.SiteOptions{site}, Keywords: book.Shared(), Rounds: r.rounds}
	if err := check.ValidateSites(); err != nil {
		return "", fmt.Errorf("site add: %v", strings.TrimPrefix(err.Error(), "sites[0] "))
	}
	// A site naming the entry's host holds it: the new one would get none of its
	// pages. One holding it as the rest of its domain, or by a *.NAME, gives it up
	// to the new one, the more specific.
	if other := book.SiteOf(site.Host()); other != nil && slices.Contains(other.HostPatterns(), site.Host()) {
		return "", fmt.Errorf("site add: %s is already crawled as site %q, which names that host (site rm %s first to replace it)",
			site.Host(), other.Name, other.Name)
	}
	if live {
		target := site.Entry
		if site.Kind == config.SiteSocial {
			target = config.SearchURL(site.Search, "x", 1)
		}
		if err := r.c.CheckTarget(target); err != nil {
			return "", fmt.Errorf("site add: %v; nothing queued", err)
		}
	}
	next := sites.New(append(slices.Clone(book.Sites()), site), book.Shared(), book.Dropped())
	r.c.SetSites(next)
	if site.Budget > 0 {
		r.c.SetSiteBudget(site.Name, site.Budget)
	}
	items := next.SourcesOf(site.Name, "")
	r.c.KeepSources(items) // a site removed before and added back
	for _, it := range items {
		r.c.AddScope(it.URL)
	}
	r.c.RestoreDiscovery(site.Name, next, live) // and its hosts' feeds and sitemaps, due now
	msg := fmt.Sprintf("%s site %s added, keywords: %s", site.Kind, site.Name, keywordList(next.Keywords(site.Name)))
	if !live {
		return msg, nil
	}
	n := r.c.QueueSources(items)
	r.c.StartRounds()
	return fmt.Sprintf("%s; %s", msg, queuedNote(n, len(items), "entry/search")), nil
}

// newsSiteName names a news site added live after its entry's registered domain,
// or after its entry's host when a declared site holds or is named that domain.
func newsSiteName(book *sites.Book, entry string) string {
	u, err := url.Parse(entry)
	if err != nil || u.Hostname() == "" {
		return entry
	}
	host := strings.ToLower(u.Hostname())
	if d := frontier.Site(host); d != "" && book.OfDomain(d) == nil && book.Named(d) == nil {
		return d
	}
	return host
}

// siteRm takes a site out of the rounds: its entry and searches are no longer
// queued, those queued already are withdrawn (Crawl.Withdraw), and its pages are no
// longer collected. The feeds and sitemaps of its hosts (those the book gave it:
// not its sibling sites' on the same registered domain) are no longer read.
// Nothing it holds is deleted: stored pages, results and costs stay; other URLs of
// it already queued are still fetched.
func (r *Steerer) siteRm(s *Change, live bool) (string, error) {
	book := r.c.Sites()
	cur := book.Named(s.Site)
	if cur == nil {
		return "", fmt.Errorf("site rm: no site named %q (sites: %s)", s.Site, siteNames(book))
	}
	list := slices.DeleteFunc(slices.Clone(book.Sites()), func(o config.SiteOptions) bool { return o.Name == s.Site })
	next := sites.New(list, book.Shared(), book.Dropped())
	r.c.SetSites(next)
	n := r.dropSources(book, next, s.Site, live)
	n += r.c.WithdrawDiscovery(s.Site, book, live)
	feeds := "its feeds and sitemaps are no longer read"
	if owner := book.SiteOf(cur.Host()); owner != nil && owner.Name != s.Site {
		// Its entry's host counted for a site declared before on it: that host's
		// feeds and sitemaps were never this site's.
		feeds = fmt.Sprintf("the feeds and sitemaps of its entry's host %s are still read for site %s", cur.Host(), owner.Name)
	} else if sib := siblings(next, cur.Domain()); sib != "" {
		feeds += "; those of " + sib + ", on its registered domain too, are still read"
	}
	return fmt.Sprintf("site %s removed from the rounds (%d queued entry/search/feed/sitemap URLs withdrawn; %s); its stored pages and results are kept", s.Site, n, feeds), nil
}

// siblings names the sites of book b declared on registered domain d ("" when
// none), the first three by name and how many more.
func siblings(b *sites.Book, d string) string {
	var names []string
	for i := range b.Sites() {
		if d != "" && b.Sites()[i].Domain() == d {
			names = append(names, b.Sites()[i].Name)
		}
	}
	switch {
	case len(names) == 0:
		return ""
	case len(names) == 1:
		return "site " + names[0]
	case len(names) <= 3:
		return "sites " + strings.Join(names, ", ")
	}
	return fmt.Sprintf("sites %s and %d more", strings.Join(names[:3], ", "), len(names)-3)
}

// keywordAdd adds a keyword to a site: a news site's pages holding it become
// results; a social site is searched for it at once.
func (r *Steerer) keywordAdd(s *Change, live bool) (string, error) {
	book := r.c.Sites()
	kw := strings.TrimSpace(strings.Join(s.Keywords, " "))
	same, has := sameKeyword(book.Keywords(s.Site), kw)
	cur := book.Named(s.Site)
	switch {
	case cur == nil:
		return "", fmt.Errorf("keyword add: no site named %q (sites: %s)", s.Site, siteNames(book))
	case kw == "":
		return "", errors.New("keyword add: an empty keyword")
	case has:
		// Keywords match pages regardless of case (sites.Book.Matches): "Storm"
		// beside "storm" would only search the same thing twice.
		return "", fmt.Errorf("keyword add: %s already has keyword %q (keywords match regardless of case)", s.Site, same)
	}
	list := slices.Clone(book.Sites())
	dropped := cloneDropped(book.Dropped())
	for i := range list {
		if list[i].Name == s.Site {
			list[i].Keywords = append(slices.Clone(list[i].Keywords), kw)
		}
	}
	dropped[s.Site] = slices.DeleteFunc(dropped[s.Site], func(k string) bool { return k == kw })
	next := sites.New(list, book.Shared(), dropped)
	r.c.SetSites(next)
	r.c.KeepSources(next.SourcesOf(s.Site, kw)) // a keyword removed before and added back
	msg := fmt.Sprintf("keyword %q added to %s", kw, s.Site)
	if !live || cur.Kind != config.SiteSocial {
		return msg, nil
	}
	items := next.SourcesOf(s.Site, kw)
	n := r.c.QueueSources(items)
	r.c.StartRounds()
	return fmt.Sprintf("%s; %s", msg, queuedNote(n, len(items), "search")), nil
}

// keywordRm takes a keyword off a site: the site's own, or a shared one (for this
// site only). Its searches already queued are withdrawn (Crawl.Withdraw); results
// already collected for it are kept.
func (r *Steerer) keywordRm(s *Change, live bool) (string, error) {
	book := r.c.Sites()
	kw, _ := sameKeyword(book.Keywords(s.Site), strings.TrimSpace(strings.Join(s.Keywords, " ")))
	s.Keywords = []string{kw} // as the site spells it, for the list's folds
	cur := book.Named(s.Site)
	switch {
	case cur == nil:
		return "", fmt.Errorf("keyword rm: no site named %q (sites: %s)", s.Site, siteNames(book))
	case !slices.Contains(book.Keywords(s.Site), kw):
		return "", fmt.Errorf("keyword rm: %s has no keyword %q (its keywords: %s)", s.Site, kw, keywordList(book.Keywords(s.Site)))
	}
	list := slices.Clone(book.Sites())
	dropped := cloneDropped(book.Dropped())
	for i := range list {
		if list[i].Name != s.Site {
			continue
		}
		list[i].Keywords = slices.DeleteFunc(slices.Clone(list[i].Keywords), func(k string) bool { return k == kw })
		if list[i].Kind == config.SiteSocial && len(list[i].Keywords) == 0 {
			// A social site with none of its own searches the shared keywords
			// (SiteOptions.KeywordsWith): taking its last one must not bring those in.
			dropped[s.Site] = append(dropped[s.Site], book.Shared()...)
		}
	}
	if slices.Contains(book.Shared(), kw) {
		dropped[s.Site] = append(dropped[s.Site], kw)
	}
	next := sites.New(list, book.Shared(), dropped)
	r.c.SetSites(next)
	n := r.dropSources(book, next, s.Site, live)
	return fmt.Sprintf("keyword %q removed from %s (%d queued searches withdrawn); its results are kept", kw, s.Site, n), nil
}

// budget sets a page budget: a site's (a declared site's name, or a registered
// domain) or a host's, per round or in total. Raising one brings back at once the
// URLs it may have held (Crawl.SetBudget).
func (r *Steerer) budget(s *Change, live bool) (string, error) {
	if s.N < 0 {
		return "", fmt.Errorf("budget: %d is not a page count (>= 0; 0 removes the cap)", s.N)
	}
	if s.Per != "" && s.Per != BudgetRound && s.Per != BudgetTotal {
		return "", fmt.Errorf("budget: span %q is neither %q nor %q", s.Per, BudgetRound, BudgetTotal)
	}
	if s.Per == BudgetRound {
		s.Per = "" // kept as the default, so one budget has one spelling in the store
	}
	c := Cap{Host: s.Host != "", Name: s.Host, Total: s.Per == BudgetTotal}
	site, note := "", ""
	if c.Host {
		h, err := BudgetHost(s.Host)
		if err != nil {
			return "", err
		}
		s.Host, c.Name = h, h
		// Unlike a pause, a budget waits for a host the crawl has not seen yet (one
		// discovery may reach later): taken, with the answer saying so, as a typo
		// would otherwise cap nothing in silence.
		if live {
			if known, err := r.c.KnowsHost(h); err == nil && !known {
				note = "; no URL of host " + h + " seen yet: the budget counts its pages once the crawl reaches it (check the name; the Hosts tab lists the hosts fetched)"
			}
		}
	} else {
		book := r.c.Sites()
		site = s.Site
		if book.Named(site) == nil {
			if strings.Contains(site, ".") {
				site = frontier.Site(strings.ToLower(site)) // undeclared: budgets go by registered domain
				if d := book.OfDomain(site); d != nil {
					// A declared site's domain is that site: one budget, not two
					// counting the same pages under two names.
					site = d.Name
				} else {
					note = " (no declared site: it counts the registered domain's pages)"
				}
			} else {
				return "", fmt.Errorf("budget: no site named %q (sites: %s; or give a domain, or host HOST for a host's budget)", s.Site, siteNames(book))
			}
		}
		s.Site, c.Name = site, site
	}
	back, recalled, err := r.c.SetBudget(c, s.N, live)
	if err != nil {
		return "", err
	}
	what := "budget of " + site
	if c.Host {
		what = "budget of host " + s.Host
	}
	span := "per round"
	if c.Total {
		span = "in total"
	}
	msg := fmt.Sprintf("%s: %d pages %s", what, s.N, span)
	if s.N == 0 {
		msg = fmt.Sprintf("%s: no cap %s", what, span)
	}
	msg += note
	if recalled > 0 {
		msg += fmt.Sprintf("; %d queued %s counted again", recalled, plural(recalled, "URL", "URLs"))
	}
	if back > 0 {
		msg += fmt.Sprintf("; %d held-back %s back", back, plural(back, "URL comes", "URLs come"))
	}
	return msg, nil
}

// window sets a news site's date window: from now on, only its pages published in
// the last s.N days (their own date) are keyword results; 0 removes it. Results
// already collected stay.
func (r *Steerer) window(s *Change) (string, error) {
	book := r.c.Sites()
	cur := book.Named(s.Site)
	switch {
	case cur == nil:
		return "", fmt.Errorf("window: no site named %q (sites: %s)", s.Site, siteNames(book))
	case cur.Kind != config.SiteNews:
		return "", fmt.Errorf("window: %s is a %s site; the date window filters a news site's keyword matches (a social site's search results are results as the site lists them)", s.Site, cur.Kind)
	case s.N < 0 || s.N > config.MaxWithinDays:
		return "", fmt.Errorf("window: %d days is out of range (0 removes the window, at most %d)", s.N, config.MaxWithinDays)
	}
	list := slices.Clone(book.Sites())
	for i := range list {
		if list[i].Name == s.Site {
			list[i].WithinDays = s.N
		}
	}
	r.c.SetSites(sites.New(list, book.Shared(), book.Dropped()))
	if s.N == 0 {
		return fmt.Sprintf("%s: no date window; its pages holding a keyword are results whatever their date", s.Site), nil
	}
	return fmt.Sprintf("%s: keyword results only from pages published in the last %d %s (by the page's own date; undated pages still count); older pages are stored, not results", s.Site, s.N, plural(s.N, "day", "days")), nil
}

// sameKeyword returns the keyword of list that kw names regardless of case (as the
// site spells it) and true, or kw and false when none does.
func sameKeyword(list []string, kw string) (string, bool) {
	if i := slices.IndexFunc(list, func(k string) bool { return strings.EqualFold(k, kw) }); i >= 0 {
		return list[i], true
	}
	return kw, false
}

func cloneDropped(m map[string][]string) map[string][]string {
	out := make(map[string][]string, len(m)+1)
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}

func siteNames(b *sites.Book) string {
	if len(b.Sites()) == 0 {
		return "none declared"
	}
	names := make([]string, len(b.Sites()))
	for i := range b.Sites() {
		names[i] = b.Sites()[i].Name
	}
	return strings.Join(names, ", ")
}

func keywordList(kws []string) string {
	if len(kws) == 0 {
		return "none"
	}
	return strings.Join(kws, ", ")
}

// plural picks one or many by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
