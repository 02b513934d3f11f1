package model

import "time"

// Revisit is one page's revisit state (M2, seed 001): the seed's t, x, last, next
// and hash, with what the class window (seed 003), the revisit policy and the
// console need. The engine owns its meaning; the store keeps it and orders pages by
// Next.
type Revisit struct {
	URL      string
	Class    string        // page class: soc, web_com, web_net, web_edu, web_gov
	First    time.Time     // first fetch; the class window counts from here
	T        time.Duration // seed "t": time observed since the first fetch
	X        int           // seed "x": changes seen, starting at 1
	Last     time.Time     // seed "last": last comparable fetch
	Next     time.Time     // seed "next": when the page is due again
	Hash     uint64        // seed "hash": SimHash of the main text at Last
	HasHash  bool          // Hash holds a fingerprint
	Fetches  int           // fetches of the page, 304s and unusable ones included
	Distance int           // Hamming distance at the last comparison, -1 before any
	Freq     float64       // the policy's budget share (estimator), summed at start
	Price    float64       // the fetch price Freq was set at (estimator)
	Policy   []byte        // the rest of the policy's per-page state, opaque to the store
	Fresh    float64       // expected freshness at Freq (estimator); -1: no estimate
	Age      float64       // expected age at Freq, days (estimator)
	Behind   bool          // the page probably changes far faster than it is fetched

	// Change is the change signal beside Hash (nil: none kept; revisit_change.go).
	Change *RevisitChange
}

// DueRevisit is one entry of the revisit order: a page and when it is due.
type DueRevisit struct {
	URL  string
	Next time.Time
}

// RevisitChange is what revisit compares beside the SimHash: digests of
// the article text, headline and raw page, the last comparison's reason, the last
// change, and the main text from before the last change, which `show URL` diffs
// with the stored page's. Meanings belong to engine/revisit; the store keeps them
// in the page's revisit row.
type RevisitChange struct {
	Text, Title, Page uint64 // digests: article body, headline (masked), raw body
	Fallback          bool   // the page had no recognisable article
	Reason            int    // revisit.ChangeReason of the last comparison
	ChangeAt          time.Time
	ChangeDistance    int // SimHash distance of the last change, -1 before any
	ChangeReason      int // revisit.ChangeReason of the last change
	// PrevText is the main text (headline, then one paragraph a line) of the copy
	// the last change replaced. Written only when Shift is set (this fetch is a
	// change): on every other fetch the stored one stays, so a crawl does not write
	// each page's text twice.
	PrevText string
	Shift    bool
}
