package engine

// masterRuntime is the master's side of a distributed crawl (M4): the workers, the
// hosts each holds, and the tasks handed to them. nil on a single-process crawl.
type masterRuntime struct{}

func (m *masterRuntime) pauseNode(name string, paused bool) error { return errNoNodes }
