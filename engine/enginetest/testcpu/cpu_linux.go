package testcpu

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// Thread runs f locked to one OS thread and returns the CPU time that thread
// spent in it: f's own work, and the garbage collection its allocations paid for;
// not the other goroutines', nor a goroutine f starts.
func Thread(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := rusage(unix.RUSAGE_THREAD)
	f()
	return rusage(unix.RUSAGE_THREAD) - before
}

// Process is the CPU time the process has taken so far, every thread's.
func Process() time.Duration { return rusage(unix.RUSAGE_SELF) }

func rusage(who int) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(who, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
