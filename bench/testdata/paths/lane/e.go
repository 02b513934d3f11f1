package lane

func second() {}

// Third is handed to Each by main only.
func Third() {}

// B is checked by main only.
type B struct{}

// Validate is never walked from Twice.
func (B) Validate() {}

func less(a, b int) bool { return a < b }
