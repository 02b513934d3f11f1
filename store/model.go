package store

import "github.com/crawlconsole/crawlconsole/store/model"

// The store's rows and options live in store/model, which links no SQLite; these
// names let a caller that opens a store use one import.
type (
	// State is model.State: where a URL is in its life in the frontier.
	State = model.State
	// URL is model.URL: one frontier task.
	URL = model.URL
	// Options is model.Options: what tunes a Store.
	Options = model.Options
	// Refusal is model.Refusal: an answer punished as an anti-bot refusal.
	Refusal = model.Refusal
	// Result is model.Result: one page a crawl round collected.
	Result = model.Result
	// Cost is model.Cost: one row of the cost table.
	Cost = model.Cost
	// Revisit is model.Revisit: one page's revisit state.
	Revisit = model.Revisit
	// RevisitChange is model.RevisitChange: the change signal beside the SimHash.
	RevisitChange = model.RevisitChange
	// DueRevisit is model.DueRevisit: a page and when it is due again.
	DueRevisit = model.DueRevisit
)

// The URL states (model's), as stored in urls.state.
const (
	Unprocessed = model.Unprocessed
	InProgress  = model.InProgress
	Processed   = model.Processed
	Failed      = model.Failed
	Deferred    = model.Deferred
)
