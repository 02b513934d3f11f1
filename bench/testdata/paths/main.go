// Command pathsfixture wires a small program whose paths the walker's test counts
// by hand: two roles (Local and Remote fronts), a store only Local calls.
package main

import (
	"pathsfixture/front"
	"pathsfixture/lane"
)

func main() {
	lane.Process(front.Local{}, nil)  // one box
	lane.Process(front.Remote{}, nil) // a worker
	lane.Twice()
	lane.Each(lane.Third) // flows into Each's parameter, never on Twice's path
	lane.Check(lane.B{})  // flows into Check's parameter, never on Twice's path
}
