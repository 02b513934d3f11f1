package engine

import "errors"

// RevisitNow implements Control.
func (e *Engine) RevisitNow(url string) error {
	return errors.New("revisit: not wired into the engine yet")
}
