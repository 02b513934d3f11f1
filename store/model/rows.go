package model

import "time"

// Refusal is one answer the crawl punished as an anti-bot refusal, with the evidence
// it acted on: what `show URL` prints for a refused URL.
type Refusal struct {
	URL      string
	At       time.Time
	Host     string
	Egress   string // the egress the answer came through ("direct" without rotation)
	Status   int
	Vendor   string // the anti-bot vendor recognised, "" for none
	Evidence string // the classifier's reason: headers, cookies, markers, weighing
	Action   string // what followed: a rotation, a disabled host, a lane back-off
}

// Result is one page a crawl round collected (M3, seed 003): a news page whose text
// holds Keyword, or a social search page or post found for Keyword.
type Result struct {
	URL       string
	Site      string        // the declared site it was collected for
	Keyword   string        // the keyword matched (news) or searched (social)
	Kind      string        // page type: news, search or post
	Host      string        // host it was fetched from
	Cost      time.Duration // fetch time of the page
	FetchedAt time.Time
	Round     time.Time // end of the round that stored it (set by SaveRound)
}

// Cost is one row of the cost table (M3): what collecting Site (Keyword empty) or
// Site+Keyword cost in the last round that touched it, and when that round ended.
type Cost struct {
	Site    string
	Keyword string
	Cost    time.Duration
	Pages   int
	Round   time.Time
}
