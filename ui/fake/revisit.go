package fake

import (
	"errors"
	"fmt"
)

// RevisitNow records the call; an empty URL fails as the engine's does.
func (c *Control) RevisitNow(url string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, fmt.Sprintf("RevisitNow(%s)", url))
	if url == "" {
		return errors.New("no URL given")
	}
	return nil
}
