package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/sites"
	"github.com/crawlconsole/crawlconsole/store"
)

// SteeringMeta is the store meta key holding the steering changes made so far (a
// JSON list of Steer, oldest first, folded as it grows: steer_compact.go), replayed
// over the config at every start.
const SteeringMeta = "steering"

// steerRuntime serialises steering changes and remembers them for the store.
type steerRuntime struct {
	mu     sync.Mutex // one change at a time: each builds on the site book the last left
	log    []Steer
	before []*sites.Book // the books around each change of log (steer_compact.go)
	after  []*sites.Book
	// outs are the sources withdrawn by changes folded out of log, kept for the next
	// start (steer_compact.go); outsChanged says they are not written yet.
	outs        map[string]bool
	outsChanged bool
	// urgent are sources added live (seeds, entries, searches) that go to the head
	// of their lane's queue (Engine.addUrgent): a lane holding an ordinary task it has
	// not sent trades it for them, a pausing lane cuts its pause to delay_min for them
	// (Engine.pause), and they go first at the host's gate, so an operator's new
	// keyword is searched as soon as the host's gaps allow (guarded by Engine.mu).
	urgent map[string]bool
	out    steerOut // queued sources withdrawn by :keyword rm and :site rm (steer_withdraw.go)
}

// Steer implements Control: it makes one change while the crawl runs, keeps it in
// the store, and says what happened. Nothing changes when it returns an error.
func (e *Engine) Steer(s Steer) (string, error) {
	if e.st == nil {
		return "", errSteerWorker
	}
	e.mu.Lock()
	state := e.state
	e.mu.Unlock()
	if state != StateRunning && state != StatePaused {
		return "", fmt.Errorf("%s: the crawl is not running", s.Op)
	}
	e.steer.mu.Lock()
	defer e.steer.mu.Unlock()
	s.At = e.now()
	before := e.sites.Load()
	msg, err := e.applySteer(&s, true)
	if err != nil {
		// Kept in the log and the store as the accepted ones are: the console's
		// status line is cut at the terminal's width and gone at the next key.
		e.logKept(LevelInfo, "steering refused: %s: %v", s.String(), err)
		return "", err
	}
	e.steer.keep(s, before, e.sites.Load())
	e.saveSteering()
	e.logKept(LevelInfo, "steering: %s", msg)
	return msg, nil
}

// replaySteering applies the changes an earlier run made, before the seeds and
// sources are queued (Start). A change that no longer applies (the config now
// declares the site itself, say) is skipped with a warning and left out of the
// list; the rest stand, folded as they are kept (steer_compact.go).
func (e *Engine) replaySteering() {
	data, err := e.st.GetMeta(SteeringMeta)
	if err != nil || len(data) == 0 {
		return
	}
	var log []Steer
	if err := json.Unmarshal(data, &log); err != nil {
		e.logf(LevelWarn, 0, "", "steering changes of an earlier run unreadable, ignored: %v", err)
		return
	}
	e.steer.mu.Lock()
	defer e.steer.mu.Unlock()
	for i := range log {
		before := e.sites.Load()
		if _, err := e.applySteer(&log[i], false); err != nil {
			e.logf(LevelWarn, 0, "", "steering change %q of an earlier run no longer applies, dropped from the list: %v", log[i].String(), err)
			continue
		}
		e.steer.keep(log[i], before, e.sites.Load())
	}
	if n := len(e.steer.log); n > 0 {
		e.logf(LevelInfo, 0, "", "%d steering changes of earlier runs applied (sites, keywords, budgets, seeds)", n)
	}
	e.restoreOut()
	if len(e.steer.log) < len(log) {
		e.saveSteering() // folded: the next start replays the shorter list
	}
	e.saveOut()
}

// saveSteering writes the list of changes to the store, and the sources withdrawn by
// changes folded out of it. Caller holds e.steer.mu.
func (e *Engine) saveSteering() {
	if data, err := json.Marshal(e.steer.log); err == nil {
		e.st.SetMeta(SteeringMeta, data)
	}
	e.saveOut()
}

// applySteer makes one change. live is false while replaying at start: the book,
// scope and budgets change, and Start queues what they lead to.
func (e *Engine) applySteer(s *Steer, live bool) (string, error) {
	switch s.Op {
	case SteerSeedAdd:
		return e.steerSeed(s, live)
	case SteerSiteAdd:
		return e.steerSiteAdd(s, live)
	case SteerSiteRm:
		return e.steerSiteRm(s, live)
	case SteerKeywordAdd:
		return e.steerKeywordAdd(s, live)
	case SteerKeywordRm:
		return e.steerKeywordRm(s, live)
	case SteerBudget:
		return e.steerBudget(s, live)
	}
	return "", fmt.Errorf("unknown steering operation %q", s.Op)
}

// steerSeed adds a seed: refused when malformed, on a blocked (private) address,
// or already in the crawl; nothing is queued then.
func (e *Engine) steerSeed(s *Steer, live bool) (string, error) {
	n, err := frontier.Normalize(strings.TrimSpace(s.URL))
	if err != nil {
		return "", fmt.Errorf("seed add: %q is not a URL to crawl: %v (give an absolute http(s) URL); nothing queued", s.URL, err)
	}
	if !live {
		e.scope.AddSeed(n)
		return "seed " + n, nil
	}
	if err := e.checkTarget(n); err != nil {
		return "", fmt.Errorf("seed add: %v; nothing queued", err)
	}
	early := !e.opts.SteerBaseline // on the board at once, as a new search (steer_early.go)
	if early {
		e.reserveEarly([]string{n})
	}
	if err := e.st.Flush(); err != nil && !errors.Is(err, store.ErrClosed) {
		e.dropEarly([]string{n})
		return "", fmt.Errorf("seed add: store: %v", err)
	}
	if row, err := e.st.URLState(n); err == nil {
		e.dropEarly([]string{n})
		return "", fmt.Errorf("seed add: %s is already in this crawl (%s); nothing queued", n, row.State)
	} else if !errors.Is(err, store.ErrNotFound) {
		e.dropEarly([]string{n})
		return "", fmt.Errorf("seed add: store: %v", err)
	}
	s.URL = n
	e.scope.AddSeed(n)
	fresh := []store.URL{e.linkRecord(n, 0, 0)}
	if early {
		fresh = e.settleEarly([]string{n}, fresh) // empty: a link to it was queued meanwhile
	}
	e.mu.Lock()
	if e.steer.urgent == nil {
		e.steer.urgent = map[string]bool{}
	}
	e.steer.urgent[n] = true // the operator's seed is its lane's next fetch, as a new search is
	e.mu.Unlock()
	e.dedupe.CheckURLs([]string{n})
	e.submit(fresh, func(u []store.URL, done store.LinkResult) { e.st.AddURLs(u, done) })
	if early {
		e.placeEarly(fresh)
	}
	return "seed " + n + " queued", nil
}

// steerSiteAdd declares a site: a news site named after its entry's registered
// domain, a social site under the name given. Its entry or searches are queued at
// once (on a master, new units go to the worker holding the fewest, seed 003).
func (e *Engine) steerSiteAdd(s *Steer, live bool) (string, error) {
	book := e.sites.Load()
	site := SiteOptions{Name: s.Site, Kind: s.Kind, Entry: s.URL, Search: s.Search, Keywords: s.Keywords}
	if s.Kind == SiteNews {
		if u, err := url.Parse(s.URL); err == nil && u.Hostname() != "" {
			site.Name = frontier.Site(u.Hostname())
		}
		if site.Name == "" {
			site.Name = s.URL
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
	check := Options{Sites: []SiteOptions{site}, Keywords: book.Shared(), Rounds: e.opts.Rounds}
	if err := check.ValidateSites(); err != nil {
		return "", fmt.Errorf("site add: %v", strings.TrimPrefix(err.Error(), "sites[0] "))
	}
	if d := site.Domain(); book.OfDomain(d) != nil {
		return "", fmt.Errorf("site add: %s is already crawled as site %q", d, book.OfDomain(d).Name)
	}
	if live {
		target := site.Entry
		if site.Kind == SiteSocial {
			target = config.SearchURL(site.Search, "x", 1)
		}
		if err := e.checkTarget(target); err != nil {
			return "", fmt.Errorf("site add: %v; nothing queued", err)
		}
	}
	next := sites.New(append(slices.Clone(book.Sites()), site), book.Shared(), book.Dropped())
	e.sites.Store(next)
	e.mu.Lock()
	if site.Budget > 0 {
		e.budget.siteRound[site.Name] = site.Budget
	}
	e.mu.Unlock()
	items := next.SourcesOf(site.Name, "")
	e.keepSources(items) // a site removed before and added back
	for _, it := range items {
		e.scope.AddSeed(it.URL)
	}
	e.restoreDiscovery(site.Domain(), live) // and its feeds and sitemaps, due now
	msg := fmt.Sprintf("%s site %s added, keywords: %s", site.Kind, site.Name, keywordList(next.Keywords(site.Name)))
	if !live {
		return msg, nil
	}
	n := e.queueSources(items, e.now())
	e.startRounds()
	return fmt.Sprintf("%s; %s", msg, queuedNote(n, len(items), "entry/search")), nil
}

// steerSiteRm takes a site out of the rounds: its entry and searches are no longer
// queued, those queued already are withdrawn (steer_withdraw.go), and its pages are
// no longer collected. Nothing it holds is deleted: stored pages, results and costs
// stay; other URLs of it already queued are still fetched.
func (e *Engine) steerSiteRm(s *Steer, live bool) (string, error) {
	book := e.sites.Load()
	if book.Named(s.Site) == nil {
		return "", fmt.Errorf("site rm: no site named %q (sites: %s)", s.Site, siteNames(book))
	}
	domain := book.Named(s.Site).Domain()
	list := slices.DeleteFunc(slices.Clone(book.Sites()), func(o SiteOptions) bool { return o.Name == s.Site })
	next := sites.New(list, book.Shared(), book.Dropped())
	e.sites.Store(next)
	n := e.dropSources(book, next, s.Site, live)
	feeds := "its feeds and sitemaps are no longer read"
	if other := next.OfDomain(domain); other != nil { // another declared site of the same domain keeps them
		feeds = "its domain's feeds and sitemaps are still read for site " + other.Name
	} else {
		n += e.withdrawDiscovery(domain, live)
	}
	return fmt.Sprintf("site %s removed from the rounds (%d queued entry/search/feed/sitemap URLs withdrawn; %s); its stored pages and results are kept", s.Site, n, feeds), nil
}

// steerKeywordAdd adds a keyword to a site: a news site's pages holding it become
// results; a social site is searched for it at once.
func (e *Engine) steerKeywordAdd(s *Steer, live bool) (string, error) {
	book := e.sites.Load()
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
	e.sites.Store(next)
	e.keepSources(next.SourcesOf(s.Site, kw)) // a keyword removed before and added back
	msg := fmt.Sprintf("keyword %q added to %s", kw, s.Site)
	if !live || cur.Kind != SiteSocial {
		return msg, nil
	}
	items := next.SourcesOf(s.Site, kw)
	n := e.queueSources(items, e.now())
	e.startRounds()
	return fmt.Sprintf("%s; %s", msg, queuedNote(n, len(items), "search")), nil
}

// steerKeywordRm takes a keyword off a site: the site's own, or a shared one (for
// this site only). Its searches already queued are withdrawn (steer_withdraw.go);
// results already collected for it are kept.
func (e *Engine) steerKeywordRm(s *Steer, live bool) (string, error) {
	book := e.sites.Load()
	kw, _ := sameKeyword(book.Keywords(s.Site), strings.TrimSpace(strings.Join(s.Keywords, " ")))
	s.Keywords = []string{kw} // as the site spells it, for the steering log's folds
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
		if list[i].Kind == SiteSocial && len(list[i].Keywords) == 0 {
			// A social site with none of its own searches the shared keywords
			// (SiteOptions.keywords): taking its last one must not bring those in.
			dropped[s.Site] = append(dropped[s.Site], book.Shared()...)
		}
	}
	if slices.Contains(book.Shared(), kw) {
		dropped[s.Site] = append(dropped[s.Site], kw)
	}
	next := sites.New(list, book.Shared(), dropped)
	e.sites.Store(next)
	n := e.dropSources(book, next, s.Site, live)
	return fmt.Sprintf("keyword %q removed from %s (%d queued searches withdrawn); its results are kept", kw, s.Site, n), nil
}

// steerBudget sets a page budget (budget.go): a site's (a declared site's name, or a
// registered domain) or a host's, per round or in total. Raising one brings back at
// once the URLs it may have held: this run's, and for a total budget those earlier
// runs parked (in the store only).
func (e *Engine) steerBudget(s *Steer, live bool) (string, error) {
	if s.N < 0 {
		return "", fmt.Errorf("budget: %d is not a page count (>= 0; 0 removes the cap)", s.N)
	}
	if s.Per != "" && s.Per != BudgetRound && s.Per != BudgetTotal {
		return "", fmt.Errorf("budget: span %q is neither %q nor %q", s.Per, BudgetRound, BudgetTotal)
	}
	if s.Per == BudgetRound {
		s.Per = "" // kept as the default, so one budget has one spelling in the store
	}
	key := budgetKey{host: s.Host != "", name: s.Host, total: s.Per == BudgetTotal}
	site, note := "", ""
	if key.host {
		h, err := budgetHost(s.Host)
		if err != nil {
			return "", err
		}
		s.Host, key.name = h, h
	} else {
		book := e.sites.Load()
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
		s.Site, key.name = site, site
	}
	e.mu.Lock()
	readTotals := live && key.total && s.N > 0 && !e.budget.totalsRead
	e.mu.Unlock()
	if readTotals {
		// The first total budget of this run: it counts what earlier runs fetched too
		// (at start, restoreSiteCounts reads them after the replay).
		if err := e.readBudgetTotals(); err != nil {
			return "", fmt.Errorf("budget: earlier runs' page counts unreadable: %v; budget unchanged", err)
		}
	}
	e.mu.Lock()
	old := e.budget.set(key, s.N)
	lift := s.N == 0 || old > 0 && s.N > old
	var back []string
	if lift {
		back = e.budget.unpark(key)
	}
	e.mu.Unlock()
	e.flushDeferred() // their deferral is written before it is undone
	recalled := 0
	if live && !lift {
		recalled = e.recallOver(key) // what queues hold, handed out before, is counted again
	}
	if lift && live && key.total {
		// A total budget's URLs stay parked across restarts: those of earlier runs
		// are in the store only.
		earlier, err := e.parkedInStore(key)
		if err != nil {
			e.logf(LevelWarn, 0, "", "budget: URLs parked by earlier runs not read (%v): they come back at their deferral's end", err)
		}
		back = appendNew(back, earlier)
	}
	now := e.now()
	for _, u := range back {
		e.st.Defer(u, now) // due now: requeueDeferred brings it back
	}
	what := "budget of " + site
	if key.host {
		what = "budget of host " + s.Host
	}
	span := "per round"
	if key.total {
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
	if len(back) > 0 {
		msg += fmt.Sprintf("; %d held-back %s back", len(back), plural(len(back), "URL comes", "URLs come"))
	}
	return msg, nil
}

// queueSources queues entry and search URLs now (M3): new ones through the store,
// known ones back to the queue. It returns how many went.
func (e *Engine) queueSources(items []revisit.Item, now time.Time) int {
	// No Flush first: a source whose insert is still in the writer's batch reads as
	// new here, and the store's unique index ignores it (INSERT OR IGNORE); waiting
	// for the batch would only delay the operator's new search. The new ones go on
	// the board at once (steer_early.go).
	early := !e.opts.SteerBaseline
	urls := make([]string, len(items))
	for i, it := range items {
		urls[i] = it.URL
	}
	if early {
		e.reserveEarly(urls)
	}
	fresh, again, err := e.splitSources(items)
	if err != nil {
		if early {
			e.dropEarly(urls)
		}
		e.logf(LevelError, 0, "", "steering: %v", err)
		return 0
	}
	if early {
		fresh = e.settleEarly(urls, fresh)
	}
	seen := make([]string, len(fresh))
	for i, r := range fresh {
		seen[i] = r.URL
	}
	e.mu.Lock()
	if e.steer.urgent == nil {
		e.steer.urgent = map[string]bool{}
	}
	for _, it := range items {
		e.steer.urgent[it.URL] = true
	}
	e.mu.Unlock()
	e.dedupe.CheckURLs(seen)
	e.submit(fresh, func(u []store.URL, done store.LinkResult) { e.st.AddURLs(u, done) })
	if early {
		e.placeEarly(fresh)
	}
	n, err := e.requeue(again, now, true)
	if err != nil {
		e.logf(LevelWarn, 0, "", "steering: %v", err)
	}
	return len(fresh) + n
}

// sameKeyword returns the keyword of list that kw names regardless of case (as the
// site spells it) and true, or kw and false when none does.
func sameKeyword(list []string, kw string) (string, bool) {
	if i := slices.IndexFunc(list, func(k string) bool { return strings.EqualFold(k, kw) }); i >= 0 {
		return list[i], true
	}
	return kw, false
}

// queuedNote says how many of a steering change's sources were queued, and that the
// others already were (in the queue or a lane's hand: a site added back while its
// entry was being fetched), rather than a bare "0 queued" that reads as a failure.
func queuedNote(queued, of int, what string) string {
	note := fmt.Sprintf("%d %s URLs queued", queued, what)
	if rest := of - queued; rest > 0 {
		note += fmt.Sprintf(" (%d already in the queue or being fetched)", rest)
	}
	return note
}

// checkTarget applies the SSRF policy (fetch.Guard) to a URL's host before it is
// queued, so an operator learns at once that a seed on a private address will never
// be fetched. The dialer checks again on every connection.
func (e *Engine) checkTarget(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return fmt.Errorf("%q has no host", raw)
	}
	host := u.Hostname()
	if a, err := netip.ParseAddr(host); err == nil {
		return e.guard.Check(host, a.Unmap())
	}
	var r fetch.Resolver
	switch {
	case e.dns != nil:
		r = e.dns
	case e.opts.Resolver != nil:
		r = e.opts.Resolver
	case host == "localhost":
		return e.guard.Check(host, netip.MustParseAddr("127.0.0.1"))
	default:
		// A master resolves nothing itself: its workers' DNS caches (and their
		// dialers' guard, on every connection) do. A name on a private address is
		// then refused at its fetch, counted as ssrf_blocked.
		return nil
	}
	ctx, cancel := context.WithTimeout(e.ctx, 5*time.Second)
	defer cancel()
	addrs, err := r.LookupAddrs(ctx, host)
	if err != nil {
		return fmt.Errorf("%s does not resolve (%v): check the name", host, err)
	}
	for _, a := range addrs {
		if err := e.guard.Check(host, a.Unmap()); err != nil {
			return err
		}
	}
	return nil
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
