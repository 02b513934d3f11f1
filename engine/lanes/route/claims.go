package route

import "github.com/crawlconsole/crawlconsole/engine/egress"

// RemoteClaims is a worker's egress master (M4): its own table first, then the
// master's account table, whose grant joins the worker's table.
type RemoteClaims struct {
	*egress.Table
	// FromMaster claims an egress from the master's table; false: none is free.
	FromMaster func() (egress.Spec, bool)
}

// Claim implements egress.Master.
func (r RemoteClaims) Claim(node string) (string, bool) {
	if name, ok := r.Table.Claim(node); ok {
		return name, true
	}
	sp, ok := r.FromMaster()
	if !ok {
		return "", false
	}
	if _, err := r.Table.AddSpec(sp); err != nil {
		return "", false
	}
	return r.Table.Claim(node)
}
