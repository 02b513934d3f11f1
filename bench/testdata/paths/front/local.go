// Package front holds the fixture's two fronts.
package front

import "pathsfixture/store"

// Local stores in process.
type Local struct{}

// Deliver stores n.
func (Local) Deliver(n int) { store.Save(n) }
