//go:build !linux

package testcpu

import "time"

// Thread returns the time f takes on the wall: without a thread's CPU clock, the
// nearest there is.
func Thread(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

// Process is the time on the wall since the package was loaded: without the
// process's CPU clock, the nearest there is.
func Process() time.Duration { return time.Since(loaded) }

var loaded = time.Now()
