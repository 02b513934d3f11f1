package cluster

import (
	"sync"
	"sync/atomic"
)

// The reasons Rejects counts by; Reason maps a Decode error to one.
const (
	ReasonOversize  = "oversize"
	ReasonMalformed = "malformed"
	ReasonInvalid   = "invalid"
)

// Rejects counts messages dropped as unusable, by reason, so the master and workers
// show them instead of crashing on them. The zero value is ready and safe for
// concurrent use; the three usual reasons are lock-free.
type Rejects struct {
	oversize, malformed, invalid atomic.Int64

	mu    sync.Mutex
	other map[string]int64
}

// Add counts one rejected message under reason.
func (r *Rejects) Add(reason string) {
	switch reason {
	case ReasonOversize:
		r.oversize.Add(1)
	case ReasonMalformed:
		r.malformed.Add(1)
	case ReasonInvalid:
		r.invalid.Add(1)
	default:
		r.mu.Lock()
		if r.other == nil {
			r.other = make(map[string]int64)
		}
		r.other[reason]++
		r.mu.Unlock()
	}
}

// Snapshot returns a copy of the counts: always the three usual reasons, plus any
// other reason that was added.
func (r *Rejects) Snapshot() map[string]int64 {
	out := map[string]int64{
		ReasonOversize:  r.oversize.Load(),
		ReasonMalformed: r.malformed.Load(),
		ReasonInvalid:   r.invalid.Load(),
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, v := range r.other {
		out[k] = v
	}
	return out
}
