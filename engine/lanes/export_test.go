package lanes

import "context"

// MayLeave is mayLeave, for the tests of the lanes_test package.
func (r *Runner) MayLeave(ctx context.Context, host string, lease uint64) error {
	return r.mayLeave(ctx, host, lease)
}

// The answers of mayLeave, and the lease of a redirect's hop.
var (
	ErrHostHeld  = errHostHeld
	ErrLeaseLost = errLeaseLost
)

const InLease = inLease
