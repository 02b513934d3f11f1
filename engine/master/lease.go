package master

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Leases and restarts (M4). A worker holds the hosts of its units on a lease: the
// join and every heartbeat the master knows renew it for Table.LeaseFor from the
// moment the worker sent them, on the worker's clock, and the worker starts no
// request on a host once it expired. The master counts the same lease from when
// it heard the worker (later than the sending), and declares it dead, reassigning
// its hosts, only a margin after that: the worker stopped starting requests before
// anyone else may begin. The gate's gap follows a host that changes hands: a batch
// carries, by host, when the last request another worker made to it ended.
//
// A master restarted on its database finds the URLs handed out by its last life
// in progress. It does not queue them again at once: they wait in limbo for a grace
// period (a lease and its margin: the longest the old master's leases can run),
// while workers rejoin and claim what they still hold (Join.Holding) and results in
// flight arrive; each claim or result takes its URL out of limbo. The units those
// URLs belong to are reserved meanwhile (none of their tasks go to another worker,
// whose requests would overlap the holder's). What no worker claimed by the end of
// the grace period is queued again.
//
// A restarted master knows no host's last request: its last life's workers may
// have requested any host until it died, and a unit dealt anew may go to another
// worker at once. So every host's gap counts from the restart at least (Restarted):
// a worker that finished a request just before the master died started no other
// since (its tasks were reported, or they wait in limbo, their unit reserved), and a
// holder that never claimed its tasks had its lease run out by the restart plus a
// lease, which the grace period's end counts for its units. What it costs: the first
// request to each host after a restart waits the host's gap from the restart.

// limboEntry is a URL the master's last life handed out.
type limboEntry struct {
	task   frontier.Task
	loaded bool // the queue has paged it in (Add met it)
	taken  bool // a worker claimed it, or its result came: not queued again
}

// Recover puts in limbo the tasks a restarted master found in progress (handed out
// by its last life), their units reserved until claimed or EndGrace.
func (t *Table) Recover(tasks []frontier.Task) {
	if t.limbo == nil {
		t.limbo = map[string]*limboEntry{}
	}
	for _, task := range tasks {
		if t.limbo[task.URL] != nil {
			continue
		}
		t.limbo[task.URL] = &limboEntry{task: task}
		t.waiting++
		u := t.unit(wire.UnitOf(task))
		u.hosts[task.Host] = true
		u.reserved = true
	}
}

// unit returns the named unit, created when absent.
func (t *Table) unit(name string) *unit {
	u := t.units[name]
	if u == nil {
		u = &unit{hosts: map[string]bool{}}
		t.units[name] = u
	}
	return u
}

// inLimbo takes a task the queue pages in whose URL is in limbo: it waits there
// (true), or it was claimed meanwhile and is dropped (true). false: not in limbo.
func (t *Table) inLimbo(task frontier.Task) bool {
	e := t.limbo[task.URL]
	if e == nil {
		return false
	}
	if e.taken {
		delete(t.limbo, task.URL)
		return true
	}
	e.task, e.loaded = task, true
	return true
}

// take marks a limbo URL claimed or reported: it is not queued again.
func (t *Table) take(url string) bool {
	e := t.limbo[url]
	if e == nil || e.taken {
		return false
	}
	t.waiting--
	if e.loaded {
		delete(t.limbo, url) // the queue will not page it in again
	} else {
		e.taken = true // swallowed when the queue pages it in
	}
	return true
}

// Limbo is how many URLs wait in limbo, claimed by no worker yet.
func (t *Table) Limbo() int { return t.waiting }

// Await names the workers the last life knew live (its saved node table): once
// each has joined this life, every claim the grace period waits for is in (a
// rejoin claims all its worker holds at once, and a worker that restarted holds
// nothing of the last life), so the grace period need not wait out their leases.
func (t *Table) Await(names []string) {
	if len(names) == 0 {
		return
	}
	t.awaiting = make(map[string]bool, len(names))
	for _, n := range names {
		t.awaiting[n] = true
	}
	t.rejoined = make(chan struct{})
}

// Rejoined is closed once every worker named to Await has joined this life; nil
// (never ready) when none was named: the grace period then waits its full length.
func (t *Table) Rejoined() <-chan struct{} { return t.rejoined }

// joinedAgain records that name joined this life at now (Await).
func (t *Table) joinedAgain(name string, now time.Time) {
	if !t.awaiting[name] {
		return
	}
	delete(t.awaiting, name)
	if len(t.awaiting) == 0 {
		t.allRejoined = now
		close(t.rejoined)
	}
}

// EndGrace ends the restart's grace period: what is still in limbo is queued again
// (those the queue has not paged in yet are left to it), and reserved units are
// dealt as any other. It returns how many URLs go back to the queue.
func (t *Table) EndGrace() int {
	t.graceOver = true
	n := 0
	for _, url := range sortedKeys(t.limbo) {
		e := t.limbo[url]
		if e.taken {
			continue
		}
		delete(t.limbo, url)
		t.waiting--
		n++
		// Its holder never claimed it: it may have requested the unit's hosts
		// until its lease, granted by the last life, ran out; or, once every
		// worker of the last life rejoined, until the last of them did: a rejoin
		// claims all its worker holds, and the worker drops unfetched what the
		// master did not take back, so none asks those hosts for it after. The
		// hosts are held until the earlier of the two: held to the lease's end
		// regardless, the URL's next holder (its old one, often) would wait out
		// the lease on each such host with its lanes idle, and a resumed crawl
		// with nothing to fetch elsewhere would wait that long in DRAINING.
		if u := t.units[wire.UnitOf(e.task)]; u != nil && !t.restarted.IsZero() {
			end := t.restarted.Add(t.LeaseFor)
			if !t.allRejoined.IsZero() && t.allRejoined.Before(end) {
				end = t.allRejoined
			}
			if end.After(u.leaseEnd) {
				u.leaseEnd = end
			}
		}
		if e.loaded { // else the queue pages it in as any other
			t.Add(e.task)
		}
	}
	for _, u := range t.units {
		u.reserved = false
	}
	t.Kick()
	return n
}

// adopt takes back the tasks a rejoining worker claims (Join.Holding): those in
// limbo, or waiting in their unit's queue, whose unit no other worker holds tasks of
// or is moving. Their units become the worker's. It returns the leases kept, and
// when the last request to each of their hosts ended (another worker may have held
// the unit since).
func (t *Table) adopt(n *node, claims []frontier.Task) (kept []uint64, last map[string]time.Time) {
	for _, c := range claims {
		if c.Lease == 0 {
			continue
		}
		if lease, ok := t.inflight[c.URL]; ok {
			if held, mine := n.held[c.URL]; mine && held.Lease == c.Lease && lease == c.Lease {
				kept = append(kept, c.Lease) // it still holds it as far as the table knows
			}
			continue
		}
		if t.reportedLate(c.Lease) {
			continue // its report came, late, and will not come again
		}
		name := wire.UnitOf(c)
		u := t.unit(name)
		if u.next != "" || u.owner != n.name && !t.ownerless(u) && u.out > 0 {
			continue // another worker is on its hosts, or they are moving
		}
		if !t.take(c.URL) && !t.unqueue(u, c.URL) {
			continue // fetched already, or never handed out: not this worker's
		}
		// Counted as a hand-out of this life: a budget holds back what is over it
		// (the worker drops it unfetched), where a claim used to be fetched on top
		// of the budget handed out again.
		if !t.front.Admit(&c) {
			continue
		}
		if u.owner != n.name {
			if old := t.nodes[u.owner]; old != nil {
				delete(old.units, name)
			}
			u.owner = n.name
			n.units[name] = true
		}
		u.reserved = false
		u.hosts[c.Host] = true
		u.out++
		t.inflight[c.URL] = c.Lease
		n.held[c.URL] = c
		kept = append(kept, c.Lease)
		if at := t.lastRequest(u, c.Host); !at.IsZero() {
			if last == nil {
				last = map[string]time.Time{}
			}
			last[c.Host] = at
		}
	}
	return kept, last
}

// A worker declared dead while only slow may have sent a task's report before it
// knew: the master, which put the task back in the queue, takes that report late and
// drops it. Rejoining before its server's acknowledgement reached it, the worker
// still claims the task among its unacknowledged reports, and a claim of a task in
// the queue is taken back. That one must not be: its report came and will not come
// again, and the task would be counted handed out for ever, the crawl never done.
// So the table remembers the leases of the reports it took late, for at least the
// last lateKept of them (a claim comes within seconds of its report), and refuses a
// claim of one.

// lateKept is how many leases of late reports a table remembers at least.
const lateKept = 1 << 16

// noteLate remembers the lease of a report taken late.
func (t *Table) noteLate(lease uint64) {
	if lease == 0 {
		return
	}
	if t.lateLeases[0] == nil || len(t.lateLeases[0]) >= lateKept {
		t.lateLeases[1], t.lateLeases[0] = t.lateLeases[0], map[uint64]struct{}{}
	}
	t.lateLeases[0][lease] = struct{}{}
}

// reportedLate tells whether a report of the hand-out lease was taken late.
func (t *Table) reportedLate(lease uint64) bool {
	for _, m := range t.lateLeases {
		if _, ok := m[lease]; ok {
			return true
		}
	}
	return false
}

// unqueue takes url out of u's queue, if it waits there.
func (t *Table) unqueue(u *unit, url string) bool {
	for i, task := range u.tasks {
		if task.URL == url {
			u.tasks = append(u.tasks[:i], u.tasks[i+1:]...)
			t.pending--
			return true
		}
	}
	return false
}

// Ended records that a request to task's host ended at at (a result's end): the
// host's next holder counts its gap from there.
func (t *Table) Ended(task frontier.Task, at time.Time) {
	if at.IsZero() {
		return
	}
	u := t.units[wire.UnitOf(task)]
	if u == nil {
		return
	}
	if u.last == nil {
		u.last = map[string]time.Time{}
	}
	if at.After(u.last[task.Host]) {
		u.last[task.Host] = at
	}
}

// lastRequest is when the last request to host (of u) ended, as far as the table
// knows: a result's end, the end of the lease of a worker that died holding u, or
// the master's restart.
func (t *Table) lastRequest(u *unit, host string) time.Time {
	at := u.last[host]
	if u.leaseEnd.After(at) {
		at = u.leaseEnd
	}
	if t.restarted.After(at) {
		at = t.restarted
	}
	return at
}

// Restarted tells the table that its master started at at on a database a master
// with workers wrote before: the hosts' gaps count from at least at.
func (t *Table) Restarted(at time.Time) { t.restarted = at }

// expire records, for the units of a worker declared dead, when its lease ended:
// it may have started a request on their hosts until then.
func (t *Table) expire(n *node) {
	end := n.heard.Add(t.LeaseFor)
	for name := range n.units {
		if u := t.units[name]; u != nil && u.owner == n.name && end.After(u.leaseEnd) {
			u.leaseEnd = end
		}
	}
}

// Lease is the lease a join or heartbeat of name grants: LeaseFor while the worker
// is known and not dead, 0 otherwise.
func (t *Table) Lease(name string) time.Duration {
	if n := t.nodes[name]; n != nil && n.state != view.NodeDead {
		return t.LeaseFor
	}
	return 0
}
