package lane

// Steps makes four calls into h.go: an empty method, an accessor, a method with
// work of its own, and a one-line method that calls another function.
func Steps(c *Counter) {
	c.Touch()    // empty: nothing of h.go runs
	n := c.Len() // an accessor (the compiler inlines it): nothing of h.go runs
	c.Add(n)     // h.go entered
	_ = c.Sum()  // h.go re-entered: its return calls sum
}
