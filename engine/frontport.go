package engine

import "github.com/crawlconsole/crawlconsole/engine/front"

// The front's names the engine's callers use (package front holds them).

// Budget skip kinds: why a URL was held back (front.Budgets holds the ledger).
const (
	SkipBudgetHost = front.SkipBudgetHost // its host used up its page budget (round or total)
	SkipBudgetSite = front.SkipBudgetSite // its site used up its page budget (round or total)
)

// SkipKinds lists the kinds counted as skipped rather than failed, in a fixed order
// (front.SkipKinds).
func SkipKinds() []string { return front.SkipKinds() }

// IsSkip reports whether a URL that ended with kind was skipped by choice (robots.txt,
// noindex, scope, content type) rather than failed (front.IsSkip).
func IsSkip(kind string) bool { return front.IsSkip(kind) }
