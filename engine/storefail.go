package engine

// Failed is closed when the crawl stopped itself because its store failed; Failure
// says why. A crawl that only ran dry or was stopped never closes it.
func (e *Engine) Failed() <-chan struct{} { return e.fr.Failed() }

// Failure is the error that stopped the crawl (a *StoreError), nil while it is healthy.
func (e *Engine) Failure() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.fr.Failure()
}

// watchStore stops the crawl on its store's first failed write (front.Front.WatchStore).
func (e *Engine) watchStore() {
	defer e.wg.Done()
	e.fr.WatchStore(e.ctx.Done())
}
