package lanes

import (
	"fmt"
	"net/http"
	"time"
)

// RotateLane moves lane id (with what it holds) to the least recently used other
// egress that may serve its hosts (M3, the operator's :rotate); from and to name
// the egresses. The rotation is on (Pool set).
func (r *Runner) RotateLane(id int) (from, to string, err error) {
	d, ok := r.Pool.RotateNow()
	r.Mu.Lock()
	defer r.Mu.Unlock()
	l, live := r.Board.Lane(id)
	if !live {
		return "", "", fmt.Errorf("no lane %d", id)
	}
	from = r.Links[l.Egress].Name
	i := -1
	if ok && d.Egress != from {
		i = r.Index(d.Egress)
	}
	if i < 0 {
		return "", "", fmt.Errorf("lane %d: no other egress to rotate to", id)
	}
	if err := r.Board.SetEgress(id, i); err != nil {
		return "", "", err
	}
	return from, d.Egress, nil
}

// RemoveEgress takes an egress out of the table and this node's rotation; the
// tasks its lanes held go to lanes on egresses that may serve them, or wait
// (Relocate). The rotation is on (Pool set).
func (r *Runner) RemoveEgress(name string) error {
	if err := r.Pool.Remove(name); err != nil {
		return err
	}
	r.Mu.Lock()
	if i := r.Index(name); i >= 0 {
		for _, t := range r.Front.OffBoard(r.Board.Evict("", i)) {
			r.Relocate(t)
		}
	}
	r.Mu.Unlock()
	r.Front.Flush()
	return nil
}

// DisableHost puts host on the host_disable_list for d (the operator's :disable;
// <= 0: rotation.disable_for) and defers its tasks on the board until it comes
// off; until is when. The rotation is on (Pool set).
func (r *Runner) DisableHost(host string, d time.Duration) (until time.Time) {
	if d <= 0 {
		d = r.Opts.Rotation.DisableFor
	}
	r.Pool.Disable(host, d)
	until, _ = r.Pool.Rotation().DisabledUntil(host)
	r.Mu.Lock()
	for _, t := range r.Front.OffBoard(r.Board.DropHost(host)) {
		r.Front.Defer(t, until)
	}
	r.Mu.Unlock()
	r.Front.Flush()
	return until
}

// Jar is the cookie jar of the egress named name, nil with cookies off: a render's
// browser context shares its session's cookies. Mu not held.
func (r *Runner) Jar(name string) http.CookieJar {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	if i := r.Index(name); i >= 0 && r.Links[i].Jar != nil {
		return r.Links[i].Jar
	}
	return nil
}

// SetMax sets how many lanes run at most (the operator's lanes.max); room made
// opens lanes for the tasks waiting. Mu not held.
func (r *Runner) SetMax(n int) error {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	opened, err := r.Board.SetMax(n)
	for _, l := range opened {
		r.Start(l)
	}
	return err
}

// AddEgress adds an egress to the table and this node's rotation at once (the
// operator wants it used), with its own transport, and opens lanes on it for the
// tasks waiting; it returns the egress's name. The rotation is on (Pool set); the
// spec was checked as a console session's (CheckSessionProxy).
func (r *Runner) AddEgress(spec string) (string, error) {
	a, err := r.Pool.Add(spec)
	if err != nil {
		return "", err
	}
	r.Pool.Rotation().Add(a.Name)
	r.Mu.Lock()
	_, err = r.AddLink(a.Name)
	opened, _ := r.Board.SetMax(r.Board.Max()) // new room: pending tasks may open lanes on it
	for _, l := range opened {
		r.Start(l)
	}
	r.Mu.Unlock()
	if err != nil {
		return "", err
	}
	return a.Name, nil
}

// SetHostPaused holds or lets go this node's requests to host (the operator's
// pause): a lane gives back a task of the host it has not sent, takes other hosts'
// tasks before the host's, and gives up its slot when only those are left; no lane
// opens for them. Resumed, the host's tasks waiting for a lane get the free slots.
// Mu held.
func (r *Runner) SetHostPaused(host string, paused bool) {
	defer func() { r.pausing.Store(int32(len(r.heldHosts))) }()
	if paused {
		r.heldHosts[host] = true
		return
	}
	delete(r.heldHosts, host)
	if r.Board != nil {
		for _, l := range r.Board.Fill() {
			r.Start(l)
		}
	}
}

// HostPaused reports whether the operator paused host, or (unless
// DeferBehindPaused, where deferBehind defers them) the host its robots.txt
// redirects to: its tasks wait off the lanes until the resume. Mu held.
func (r *Runner) HostPaused(host string) bool {
	return r.heldHosts[host] || !r.DeferBehindPaused && r.heldHosts[r.behind(host)]
}

// PausedHosts are the hosts the operator paused, in order. Mu held.
func (r *Runner) PausedHosts() []string { return sortedKeys(r.heldHosts) }
