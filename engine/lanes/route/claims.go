package route

import "github.com/crawlconsole/crawlconsole/engine/egress"

// RemoteClaims is a worker's egress master (M4): its own table first, then the
// master's account table, whose grant joins the worker's table.
type RemoteClaims struct {
	*egress.Table
	// FromMaster claims an egress from the master's table and hands it to add;
	// false: none is free.
	FromMaster func(add func(egress.Spec) error) bool
}

// Claim implements egress.Master.
func (r RemoteClaims) Claim(node string) (string, bool) {
	if name, ok := r.Table.Claim(node); ok {
		return name, true
	}
	// The grant joins the table inside the claim: an egress the master takes off
	// this worker as its grant is read is either in the table for the removal to
	// find, or not added.
	add := func(sp egress.Spec) error {
		_, err := r.Table.AddSpec(sp)
		return err
	}
	if !r.FromMaster(add) {
		return "", false
	}
	return r.Table.Claim(node)
}
