package local

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Defer sets a task aside until a time (M3: a disabled host; a page budget). The
// write happens in FlushDeferred, outside Mu. Mu held.
func (c *Crew) Defer(t frontier.Task, until time.Time) {
	c.deferred.Add(lanes.Deferred{Task: t, Until: until}, c.crawl.Now())
}

// DeferAs is Defer for a URL counted under kind while set aside (an unreachable
// robots.txt): the deferral carries it to a master. Mu held.
func (c *Crew) DeferAs(t frontier.Task, until time.Time, kind string) {
	c.deferred.Add(lanes.Deferred{Task: t, Until: until, Kind: kind}, c.crawl.Now())
}

// DeferBehind is Defer for a task whose site's robots.txt redirects to held, a
// host the operator holds: enabling held brings it back with held's own. Mu held.
func (c *Crew) DeferBehind(t frontier.Task, until time.Time, held string) {
	c.deferred.Add(lanes.Deferred{Task: t, Until: until, Behind: held}, c.crawl.Now())
}

// FlushDeferred writes pending deferrals to the front, and ends the tasks
// withdrawn on their way to the board, like deferrals.
func (c *Crew) FlushDeferred() {
	c.parts.Mu.Lock()
	list := c.deferred.Take()
	c.parts.Mu.Unlock()
	if len(list) > 0 {
		c.crawl.DeferURLs(list)
	}
	c.fr.FlushSteeredOut()
}

// KeepDeferred keeps deferred URLs moving until the crawl stops: deferrals are
// written, expired host_disable_list entries removed (M3), and deferred URLs whose
// time has come (a disabled host, an unreachable robots.txt) are queued again.
// Nothing deferred is left unwritten when it returns.
func (c *Crew) KeepDeferred() {
	defer c.FlushDeferred()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-c.parts.Ctx.Done():
			return
		case <-t.C:
		}
		c.FlushDeferred()
		if c.Pool != nil {
			if removed := c.Pool.BeginRound(c.crawl.Now()); len(removed) > 0 {
				c.crawl.Logf(view.LevelInfo, 0, "", "host_disable_list: %d hosts back in the crawl", len(removed))
			}
		}
		c.crawl.RequeueDeferred()
	}
}
