package discover

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time f takes on its own thread: the parse's work, which a
// loaded box (other processes, other goroutines, the fuzz engine's workers) leaves
// as it is, unlike the time on the wall.
func threadCPU(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := threadRusage()
	f()
	return threadRusage() - before
}

func threadRusage() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
