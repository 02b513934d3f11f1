package store

import "testing"

// TestStateNumbersAndNames: the state numbers are part of the file format and the
// names appear in stats; neither may change.
func TestStateNumbersAndNames(t *testing.T) {
	for _, tc := range []struct {
		s    State
		num  int
		name string
	}{
		{Unprocessed, 0, "unprocessed"}, {InProgress, 1, "in_progress"}, {Processed, 2, "processed"},
		{Failed, 3, "failed"}, {Deferred, 4, "deferred"}, {State(99), 99, "state(99)"},
	} {
		if int(tc.s) != tc.num || tc.s.String() != tc.name {
			t.Errorf("state %d %q, want %d %q", int(tc.s), tc.s.String(), tc.num, tc.name)
		}
	}
}
