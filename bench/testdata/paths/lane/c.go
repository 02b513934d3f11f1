package lane

import "sort"

// Twice hands functions to parameters: the walk takes each to what it was given.
func Twice() {
	Each(first)  // Each calls first (d.go)
	Each(second) // Each walked already: second (e.go) runs here
	Check(A{})   // only A's Validate, not B's
	xs := []int{2, 1}
	sort.Slice(xs, func(i, j int) bool { return less(xs[i], xs[j]) }) // the closure runs in sort: less is walked
}

// Each calls fn.
func Each(fn func()) { fn() }

// Validator is checked by Check.
type Validator interface{ Validate() }

// Check validates v when it can.
func Check(v any) {
	if val, ok := v.(Validator); ok {
		val.Validate()
	}
}
