package master

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/master/verdicts"
	"github.com/crawlconsole/crawlconsole/store"
)

// crawlPort is a master's crew as its Runtime's Crawl: the crawl's life (the
// crew's Shell), the front's budgets and revisit marks as tasks move, and the
// store's side of a hand-out and of a worker's report.
type crawlPort struct {
	Shell
	p  Parts
	hb time.Duration // the workers' heartbeat period, in the settings they follow
}

var _ Crawl = crawlPort{}

func (p crawlPort) SetMeta(key string, data []byte) { p.p.Store.SetMeta(key, data) }
func (p crawlPort) RevisitEnded(url string) bool    { return p.p.Front.Marks().Ended(url) }
func (p crawlPort) RevisitDeferred(url string)      { p.p.Front.Marks().Deferred(url) }
func (p crawlPort) Refused(r store.Refusal)         { p.p.Store.AddRefusal(r) }
func (p crawlPort) AfterCommit(f func(error))       { p.p.Store.AfterCommit(f) }
func (p crawlPort) FetchCost(d time.Duration)       { p.p.Cost.Add(d) }
func (p crawlPort) HandedOut(t frontier.Task)       { p.p.Front.Marks().Taken(t.URL) }

// Settings are the crawl settings a worker follows, with the render verdicts the
// crawl learned so far.
func (p crawlPort) Settings() wire.Settings {
	o := *p.p.Opts
	render := o.Render
	render.Browser = "" // a path on the master's box: the worker finds its own
	return wire.Settings{Lanes: o.Lanes, HostRate: o.HostRate, Politeness: &o.Politeness, Cookies: &o.Cookies, Robots: o.Robots, UserAgent: o.UserAgent,
		Fetch: o.Fetch, DNS: o.DNS, DNSServers: o.DNSServers, Rotation: o.Rotation, HeartbeatEvery: p.hb,
		Etiquette: &o.Etiquette, Render: &render, RenderVerdicts: p.p.Verdicts.Snapshot(p.verdictsMeta()),
		Discovery: &wire.DiscoveryLimits{Enabled: o.Discovery.Enabled, MaxDocumentBytes: o.Discovery.MaxDocumentBytes}}
}

// verdictsMeta is the store as the render verdicts book's Meta: nil with none, not
// a nil *store.Store in a Meta, which the book would read through.
func (p crawlPort) verdictsMeta() verdicts.Meta {
	if p.p.Store == nil {
		return nil
	}
	return p.p.Store
}

// Prepare marks a task in progress in the store as it leaves for a worker: a
// refetch carries its validators (M2, a conditional GET), and a URL a fetched page
// stands for as its canonical is marked Stood (the worker ends it unsent).
func (p crawlPort) Prepare(t *frontier.Task) { p.p.Front.PrepareHandOut(t) }

// Held marks urls in progress in the store, in one write: tasks a rejoining worker
// holds, taken back (their validators and stand-ins were set at their hand-out).
func (p crawlPort) Held(urls []string) { p.p.Store.SetInProgress(urls) }

// Commit records a worker's result. A revisit is recorded as one: its stored state
// read with the mark just dropped in mind. Read after the drop, it was a first fetch
// every time (no history for the estimator, no date hints: a source's last read
// unknown).
func (p crawlPort) Commit(r *wire.Result, revisit bool) {
	fr := p.p.Front
	if r.Kind == front.SkipSteeredOut { // withdrawn from the worker's board
		fr.EndSteeredOut(r.Task)
		return
	}
	if r.Res != nil {
		p.p.Verdicts.Note(p.verdictsMeta(), r.Res.Render)
	}
	o := lanes.Outcome{Task: r.Task, Lane: r.Lane, Egress: r.Egress, Node: r.Node, Kind: r.Kind, Res: r.Res, Hops: r.Hops, At: r.At}
	pr := front.Prior{}
	pr.Page, pr.Track = p.p.Revisit.State(o.Task, revisit)
	o.Note = pr
	fr.Record(o)
}

// Defer sets aside a URL a worker deferred: it is no result (the URL's fetch
// history stays as it was), and the store queues it again at until. A kind
// (robots_unreachable) is counted, with the URL as an example, as one box counts
// it when it sets the URL aside: once while the URL waits. behind is the held host
// its site waits behind ("": none), for the Sites pane.
func (p crawlPort) Defer(url string, until time.Time, kind, behind string) {
	p.p.Front.SetAside(url, frontier.Hostname(url), until, kind, behind)
}

// Undefer makes deferred URLs due now: the store queues them again at its next
// look at the deferred.
func (p crawlPort) Undefer(urls []string) {
	for _, u := range urls {
		p.p.Store.Undefer(u, p.Now())
	}
}

// Budgets on a master (M4). The master's queue is not where pages are fetched: a
// budget counted there (as Place does on one box) let every task already handed to
// a worker through, and a worker holds a window of hundreds. So a master counts a
// budget's pages as it hands them out (Admit, which marks the task Budgeted) and
// takes the count back for a hand-out that comes back unfetched (HandedBack); a
// budget set or lowered live recalls from the workers' queues what their lanes
// have not taken, and deals it again within the budget. What was handed out
// before any budget was set is not counted until fetched (the totals read the
// store then); what the lanes hold is fetched: a host's pages end at most at its
// budget plus the lanes in flight on it.

// Admit counts t against the page budgets as the master hands it to a worker, or
// holds it back as Place does on one box. Caller holds the lock.
func (p crawlPort) Admit(t *frontier.Task) bool {
	b, fr := p.p.Budgets, p.p.Front
	t.Budgeted = false
	if !b.Active() {
		return true // not counted: a budget set later counts what was fetched (the store) and recalls the rest
	}
	kind, until := b.Admit(*t, p.Now())
	if kind == "" {
		t.Budgeted = true
		return true
	}
	fr.Marks().LeftQueue(t.URL) // it leaves the master's queue unfetched
	fr.HoldBack(*t, kind, until)
	return false
}

// Dropped: a queued revisit dropped for its URL's hand-out out lets its mark go.
// The hand-out's report is the first fetch's (Ended leaves a waiting mark), and
// its commit gives the page its next due time: kept, the mark stayed waiting for
// good, the crawl never idle and the URL never marked (revisited) again.
func (p crawlPort) Dropped(t frontier.Task) { p.p.Front.Marks().Dropped(t.URL) }

// Fetched counts against the budgets a page the master's last life handed out
// (counted then, by a ledger gone with it).
func (p crawlPort) Fetched(t frontier.Task) {
	if p.p.Budgets.Active() {
		p.p.Budgets.Count(t)
	}
}

// HandedBack: a revisit's mark follows its task back to the master; a task
// withdrawn while a worker held it ends instead of coming back.
func (p crawlPort) HandedBack(t frontier.Task) bool {
	fr := p.p.Front
	if t.Budgeted {
		p.p.Budgets.Unadmit(t) // not fetched: counted again when next handed out
	}
	fr.Marks().HandedBack(t.URL)
	if fr.Withdrawn(t) {
		fr.Marks().LeftQueue(t.URL) // before SetOut drops the mark
		fr.SetOut(t)
		return false
	}
	return true
}
