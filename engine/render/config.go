package render

import (
	"context"
	"time"
)

// Config sets the browser pool and the caps of one render.
type Config struct {
	// Browser is the headless Chromium's path; empty: Find's search.
	Browser string
	// Contexts is how many pages render at once and stay open between renders
	// (default 4). Each belongs to the browser context of one (egress, site): a
	// session's pages share its cookies, and a busy session renders several of
	// its pages at once.
	Contexts int
	// Timeout caps one render, from the document to the DOM read (default 10 s).
	Timeout time.Duration
	// Settle is how long the page's network and DOM stay quiet, with none of its
	// script's fetch, XHR or short timers pending, before its DOM is read
	// (default 150 ms).
	Settle time.Duration
	// MaxRequests caps the requests one render sends on (default 200).
	MaxRequests int
	// MaxBytes caps the bytes of the responses one render receives (default 16 MiB).
	MaxBytes int64
	// Block lists the resource types refused without a request, as CDP names
	// them (Image, Media, Font, Stylesheet, Script, XHR, Fetch, ...); nil: Image,
	// Media, Font. An empty non-nil list blocks none.
	Block []string
	// AllowHosts lists hosts besides the page's own site that a page may load
	// from (a suffix matches its subdomains); every other host is blocked.
	AllowHosts []string
	// MemoryMB caps the pool's proportional memory (PSS) summed over the browser's
	// processes (default 400); above it the context just used is disposed and,
	// idle, the browser is restarted.
	MemoryMB int
	// RestartAfter restarts the browser after this many renders (default 1000):
	// a long-lived Chromium grows.
	RestartAfter int
	// YieldLimit is how long the page's renderer may leave a trivial question
	// unanswered, while a renderer of the browser runs that long on the CPU (the
	// wall alone where /proc cannot be read), before its script is judged never to
	// yield and the render ends (default 3 s; never more than half of Timeout).
	// Sites with a heavy first script want more.
	YieldLimit time.Duration
	// StartTimeout bounds the browser's start, from its launch to its first
	// page (default 30 s): a browser that takes longer is killed, and the renders
	// waiting for it keep their pages as fetched. It bounds as well the browser's
	// answer when a session's browser context or a new page is made: a browser
	// that gives none by then has stopped answering, and is killed and started
	// anew.
	StartTimeout time.Duration
	// Shared, if set, is a browser started by StartBrowser that the pool renders
	// in instead of starting one of its own: the pool's sessions are browser
	// contexts of their own in it, disposed when the pool is done with them; the
	// pool never stops, kills or measures it (MemoryMB and RestartAfter do not
	// apply). Tests share one browser this way; nil: the pool's own.
	Shared context.Context
	// Logf, if set, hears what the operator should know of the browser itself:
	// one killed for not answering, or not stopping in time.
	Logf func(format string, args ...any)
}

func (c Config) withDefaults() Config {
	if c.Contexts <= 0 {
		c.Contexts = 4
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.Settle <= 0 {
		c.Settle = 150 * time.Millisecond
	}
	if c.MaxRequests <= 0 {
		c.MaxRequests = 200
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = 16 << 20
	}
	if c.Block == nil {
		c.Block = []string{"Image", "Media", "Font"}
	}
	if c.MemoryMB <= 0 {
		c.MemoryMB = 400
	}
	if c.RestartAfter <= 0 {
		c.RestartAfter = 1000
	}
	if c.YieldLimit <= 0 {
		c.YieldLimit = yieldLimit
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = defaultStartTimeout
	}
	return c
}
