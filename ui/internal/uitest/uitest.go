// Package uitest holds the waiting the console's tests share across packages (ui,
// ui/ssh): a wait on a condition the test can observe, bounded by one deadline.
package uitest

import (
	"testing"
	"time"
)

// Deadline bounds every wait: generous, as the box running the tests may be shared
// and loaded. A wait that reaches it failed; one that succeeds returns as soon as its
// condition holds.
const Deadline = 30 * time.Second

// WaitUntil checks cond every 20 ms until it holds, and fails t naming what it
// waited for when Deadline passes first.
func WaitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(Deadline)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
