package lane

func first() {}

// A is checked on Twice's path.
type A struct{}

// Validate is walked from Twice.
func (A) Validate() {}
