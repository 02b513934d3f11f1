package worker

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrLeaseLost is a Lease's answer for a task the master gave to another worker
// while this one could not hear it (paused, cut off): the task is dropped unfetched.
var ErrLeaseLost = errors.New("lease lost: the master gave the host to another worker")

// Lease is a worker's hold on the hosts the master dealt it (M4). The master
// grants it with the join and renews it with every heartbeat it knows, for a
// duration counted from when the worker sent the request, on the worker's clock;
// the master counts the same duration from when it heard the worker, and gives the
// hosts to others only a margin after that. So a worker whose lease has run out
// (it was paused, or cut off from the master) starts no request until a heartbeat
// renews it, or a rejoin tells which of its tasks are still its own.
//
// A Lease is safe for concurrent use. The zero value is not usable: NewLease.
type Lease struct {
	now func() time.Time

	mu      sync.Mutex
	on      bool          // a master that grants leases granted one
	until   time.Time     // the lease's end on this worker's clock
	d       time.Duration // the length of the last grant
	changed chan struct{}
	// lost are the hand-outs (by lease number) a rejoin's master did not take
	// back; replaced at each rejoin (a lane holding one gives it up at once).
	lost map[uint64]bool
	// since is the first lease of the life the last rejoin began, kept the
	// hand-outs of earlier lives it took back: any other numbered below since
	// was handed to a life the master ended (Stale).
	since uint64
	kept  map[uint64]bool
	// bound is ended when the lease runs out unrenewed (Bound); nil until a
	// request asks for it, and again once ended. expiry is the timer that checks.
	bound  context.Context
	cut    context.CancelFunc
	expiry *time.Timer
}

// NewLease is a lease not granted yet (no request waits for it until one is:
// a master that predates leases never grants any). now is the clock (nil:
// time.Now, whose monotonic reading keeps running while the process is stopped).
func NewLease(now func() time.Time) *Lease {
	if now == nil {
		now = time.Now
	}
	return &Lease{now: now, changed: make(chan struct{})}
}

// Grant renews the lease until sent+d: sent is when the worker sent the join or
// heartbeat the master answered with d. d == 0 means the master grants none: the
// worker's requests are not held.
func (l *Lease) Grant(sent time.Time, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.on, l.d = d > 0, d
	if end := sent.Add(d); end.After(l.until) || !l.on {
		l.until = end
	}
	l.signal()
}

// For is the length of the last grant: how long a reply to a heartbeat can still
// renew the lease after it was sent.
func (l *Lease) For() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.d
}

// Lose marks the hand-outs (by lease number) the master did not take back at a
// rejoin: a lane holding one drops it unfetched.
func (l *Lease) Lose(leases []uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lost = make(map[uint64]bool, len(leases))
	for _, n := range leases {
		l.lost[n] = true
	}
	l.signal()
}

// Begin records the life a rejoin began: the master hands it leases from since
// on, and took back the hand-outs of earlier lives numbered in kept. Every other
// hand-out numbered below since is stale: the master queued it again when it
// ended the life it went to. since 0 (a master that does not say) changes nothing.
func (l *Lease) Begin(since uint64, kept []uint64) {
	if since == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.since = since
	l.kept = make(map[uint64]bool, len(kept))
	for _, n := range kept {
		l.kept[n] = true
	}
	l.signal()
}

// Stale tells whether the hand-out numbered lease is no longer this worker's:
// the last rejoin's master did not take it back, or it went to a life that
// ended before that rejoin (a batch of it reaching the worker late). A stale
// task is dropped unfetched.
func (l *Lease) Stale(lease uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stale(lease)
}

// stale is Stale. Caller holds l.mu.
func (l *Lease) stale(lease uint64) bool {
	return lease != 0 && (l.lost[lease] || lease < l.since && !l.kept[lease])
}

// signal wakes every Wait. Caller holds l.mu.
func (l *Lease) signal() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// Until is the lease's end on the worker's clock; ok is false when no lease holds
// the worker's requests.
func (l *Lease) Until() (until time.Time, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.until, l.on
}

// Wait returns nil once a request for the hand-out numbered lease (0: any of the
// worker's hosts, a robots.txt) may start: at once while the lease runs, else
// when a heartbeat or a rejoin renews it. ErrLeaseLost: the hand-out is stale
// (the rejoin's master gave it to another worker, or queued it again). ctx's error when it ends first.
func (l *Lease) Wait(ctx context.Context, lease uint64) error {
	for {
		l.mu.Lock()
		if l.stale(lease) {
			l.mu.Unlock()
			return ErrLeaseLost
		}
		if !l.on || l.now().Before(l.until) {
			l.mu.Unlock()
			return nil
		}
		ch := l.changed
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Bound is a context that ends when the lease runs out unrenewed, on the worker's
// clock: a request made under it is cut there, as a request started after it would
// not have been (Wait), so it cannot run on while the master hands its host to
// another worker (a heartbeat period after the lease's end by the master's
// count). nil while no lease holds the worker's requests.
func (l *Lease) Bound() context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.on {
		return nil
	}
	if l.bound == nil {
		l.bound, l.cut = context.WithCancel(context.Background())
		l.arm()
	}
	return l.bound
}

// arm sets the expiry timer to the lease's end. Caller holds l.mu.
func (l *Lease) arm() {
	d := l.until.Sub(l.now())
	if l.expiry == nil {
		l.expiry = time.AfterFunc(d, l.expire)
		return
	}
	l.expiry.Reset(d)
}

// expire ends Bound's context if the lease has run out; renewed meanwhile, it
// waits for the new end.
func (l *Lease) expire() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.bound == nil {
		return
	}
	if l.on && l.now().Before(l.until) {
		l.arm()
		return
	}
	l.cut()
	l.bound, l.cut = nil, nil
}
