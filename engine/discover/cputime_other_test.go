//go:build !linux

package discover

import "time"

// threadCPU is the time f takes: without a thread's CPU clock, the time on the wall.
func threadCPU(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}
