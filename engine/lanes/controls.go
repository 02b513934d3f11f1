package lanes

import (
	"fmt"
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

// DisableHost puts host on the host_disable_list for rotation.disable_for (the
// operator's :disable) and defers its tasks on the board until it comes off;
// until is when. The rotation is on (Pool set).
func (r *Runner) DisableHost(host string) (until time.Time) {
	r.Pool.Disable(host, r.Opts.Rotation.DisableFor)
	until, _ = r.Pool.Rotation().DisabledUntil(host)
	r.Mu.Lock()
	for _, t := range r.Front.OffBoard(r.Board.DropHost(host)) {
		r.Front.Defer(t, until)
	}
	r.Mu.Unlock()
	r.Front.Flush()
	return until
}
