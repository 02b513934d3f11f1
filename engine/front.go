package engine

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/render"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// The front's life in this process (one box, a master): what it restores and queues
// at Start, the work it keeps running, and what it saves at Stop. A worker's front
// is its master (worker.Front), which does all of this there.

// Start restores the revisit state, replays steering, resumes the queue an earlier
// run left, queues the seeds, and only then starts the crew.
//
// The crew starts last because a master's crew takes its workers' results and
// joins from its first moment, and a restarted master finds results waiting in the
// stream: one committed before the front is whole had its links judged by a scope
// without the seeds' sites (all off-site, a whole subtree never queued), went to a
// queue the resume then loaded again, and was counted against budgets the replay
// and the site counts had not restored yet.
func (f localFront) Start() error {
	e := f.e
	if err := e.rv.Restore(); err != nil {
		return fmt.Errorf("revisit state: %w", err)
	}
	// Sites, keywords, budgets and seeds changed in earlier runs, before the queue
	// is resumed: lanes start with the first task placed, and a search whose
	// keyword was removed must meet its withdrawal (engine/front) there.
	e.steer.Replay()
	if err := e.fr.Resume(); err != nil {
		return err
	}
	e.fr.RestoreSiteCounts(e.steer.Len() > 0)
	seeds := e.opts.Seeds
	if e.disc != nil {
		seeds = append(seeds[:len(seeds):len(seeds)], e.disc.Seeds()...)
	}
	if err := e.fr.QueueSeeds(seeds, e.sites.Load().Sources()); err != nil {
		return err
	}
	if err := e.crew.Start(); err != nil {
		return err
	}
	if crewStarted != nil {
		crewStarted(e)
	}
	return nil
}

// crewStarted, when set (tests only), runs as soon as the crew started, before the
// crawl's other work: a test holds the start there to see what the crew takes
// first.
var crewStarted func(*Engine)

// Run starts the front's own goroutines: the store's watch, the revisit scheduler
// and the rounds over the sites.
func (f localFront) Run() {
	e := f.e
	e.wg.Add(1)
	go e.watchStore()
	if e.opts.Revisit.Enabled {
		e.wg.Add(1)
		go e.runRevisit()
	}
	if len(e.sites.Load().Sites()) > 0 {
		e.startRounds()
	}
}

// Started logs what the store says of the run it resumed: the URLs the SSRF guard
// refused before, the failure that stopped the last run.
func (f localFront) Started() {
	e := f.e
	if n := e.st.RequeuedBlocked(); n > 0 {
		e.logf(view.LevelInfo, 0, "", "%d URLs the SSRF guard refused before are tried again under this run's allow_private", n)
	}
	e.fr.NoteLastFailure()
}

// Stop saves what the crawl learned, once its lanes and goroutines are done: the
// DNS cache, the lanes still open, the discovery state, the revisit site priors,
// the render verdicts and the round, and commits every write.
func (f localFront) Stop() {
	e := f.e
	e.lanes.Save(e.st, e.now())
	if e.disc != nil {
		e.disc.Save(e.now())
	}
	e.rv.SaveSitePriors(e.now())
	e.saveRenderVerdicts(e.st)
	e.fr.EndRound(e.now()) // M3: the round's results are not lost to a stop
	if err := e.st.Flush(); err != nil && e.Failure() == nil {
		e.logf(view.LevelError, 0, "", "store: %v", err)
	}
}

// Show adds the front's panes to a snapshot: the revisit schedule, the sites and
// their discovery, the stories. Called without e.mu.
func (f localFront) Show(s *view.Snapshot, now time.Time) {
	e := f.e
	s.Revisit = e.revisitView(now)
	if r := s.Revisit; r != nil && r.Enabled && len(r.Due) > 0 && r.Due[0].Next.Before(revisit.Never) {
		s.NextRevisit = r.Due[0].Next
	}
	s.Sites = e.fr.SitesView(now, s.Discovery, e.lanes.Run.Behind())
	s.Stories = e.fr.Stories.View()
}

// Undefer makes deferred URLs due now: RequeueDeferred brings them back.
func (f localFront) Undefer(urls []string, now time.Time) {
	for _, u := range urls {
		f.e.st.Undefer(u, now)
	}
}

// FeedSeeds queues a batch of a seed list as Start queues Options.Seeds and waits
// for the store to take it in.
func (f localFront) FeedSeeds(seeds []string) error {
	if err := f.e.fr.QueueSeeds(seeds, nil); err != nil {
		return err
	}
	return f.e.st.Flush()
}

// Event keeps a warning or an error in the store's event table.
func (f localFront) Event(ev view.Event) {
	f.e.st.AddEvent(ev.At, int(ev.Level), ev.Lane, ev.Host, ev.Msg)
}

// LaneOpened and LaneRetired keep the lanes' history (stats).
func (f localFront) LaneOpened(lane int, egress string, at time.Time) {
	f.e.st.LaneOpened(lane, egress, at)
}
func (f localFront) LaneRetired(lane int, at time.Time, done int64) {
	f.e.st.LaneRetired(lane, at, done)
}

// RequeueDeferred brings back deferred URLs whose time has passed on the engine's
// clock, which set their times.
//
// URLs found due are read again once every write before is committed: the last
// requeue's (or a resume's) marks of the URLs it placed as unprocessed may still
// wait in the store's queue on a busy box, and a URL read deferred then would go
// on the board a second time, to be fetched and counted done twice.
func (f localFront) RequeueDeferred() {
	e := f.e
	rows, err := e.st.DueDeferred(e.now(), 1000)
	if err != nil || len(rows) == 0 {
		return
	}
	if e.st.Flush() != nil {
		return
	}
	if rows, err = e.st.DueDeferred(e.now(), 1000); err != nil || len(rows) == 0 {
		return
	}
	for _, r := range rows {
		e.st.SetState(r.URL, store.Unprocessed, 0, "")
	}
	e.mu.Lock()
	for _, r := range rows {
		e.fr.Place(front.TaskOf(r))
	}
	e.mu.Unlock()
	e.lanes.FlushDeferred()
}

// saveRenderVerdicts keeps what the decider learned in st (the front's stop).
func (e *Engine) saveRenderVerdicts(st *store.Store) {
	vs := e.role.verdicts(e)
	if len(vs) == 0 {
		return
	}
	if b, err := json.Marshal(vs); err == nil {
		st.SetMeta(render.VerdictsKey, b)
	}
}
