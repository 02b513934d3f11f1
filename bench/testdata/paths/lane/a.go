// Package lane is the fixture's task path.
package lane

// Front is where a task's end goes; main wires a Local or a Remote.
type Front interface{ Deliver(n int) }

// Process is a task's path.
func Process(f Front, xs []int) {
	prepare()          // into b.go (entered), which calls helper back here (a.go re-entered)
	f.Deliver(len(xs)) // into front/local.go or front/remote.go, by role
	prepare()          // expanded already: not walked again
	go background()    // another goroutine's work: not followed
	finish()           // into b.go again (b.go re-entered)
}

func helper() {}
