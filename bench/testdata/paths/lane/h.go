package lane

// Counter is what Steps calls.
type Counter struct{ xs []int }

func (c *Counter) Touch() {}

func (c *Counter) Len() int { return len(c.xs) }

func (c *Counter) Add(n int) { c.xs = append(c.xs, n) }

func (c *Counter) Sum() int { return sum(c.xs) }

func sum(xs []int) (n int) {
	for _, x := range xs {
		n += x
	}
	return n
}
