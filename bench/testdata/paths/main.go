// Command pathsfixture wires a small program whose paths the walker's test counts
// by hand: two roles (Local and Remote fronts), a store only Local calls.
package main

import (
	"os"
	"strconv"

	"pathsfixture/front"
	"pathsfixture/lane"
)

func main() {
	if len(os.Args) == 3 && os.Args[1] == "tasks" { // the traced test's run: N tasks on a worker
		n, _ := strconv.Atoi(os.Args[2])
		for range n {
			lane.Task(front.Remote{})
		}
		return
	}
	lane.Task(front.Local{})          // never run by the traced test
	lane.Process(front.Local{}, nil)  // one box
	lane.Process(front.Remote{}, nil) // a worker
	lane.Twice()
	lane.Each(lane.Third) // flows into Each's parameter, never on Twice's path
	lane.Check(lane.B{})  // flows into Check's parameter, never on Twice's path
}
