// Package learned holds what the render decider learns per section and keeps
// across runs, without the browser: a master keeps its workers' verdicts in its
// store and hands them out, and need not link chromedp to do so.
package learned

// Key is the store meta key the sections' render verdicts are kept under
// across runs, so that a restarted crawl does not learn its hosts again.
const Key = "render_verdicts"

// Verdicts are the sections' known verdicts, to keep across runs: section key
// (host and first path segment) to whether its pages need rendering.
type Verdicts map[string]bool
