package revisit

import (
	"fmt"
	"time"
)

// How Tracker.Observe tells a real change from churn. The seed's rule,
// Hamming(SimHash) > threshold, misses most real edits of long articles (one
// paragraph in fifty moves a bit or two of 64). With a Signature on both sides:
//
//   - a changed headline digest is a change (ReasonHeadline);
//   - a changed article-body digest is a change (ReasonText), except that with
//     SmallEdits "ignore" an edit whose SimHash distance is within the threshold
//     (a few words) is not;
//   - equal digests are no change, whatever moved around the article
//     (ReasonBoilerplate when the raw page differs, ReasonNone when it does not);
//   - a page without a recognisable article (Signature.Fallback, on either side)
//     keeps the seed's rule: its digest would see every counter in the page chrome.
//
// A page stored before digests existed (HasDigest false) also keeps the seed's rule
// for one comparison.

// ChangeReason says why the last comparison counted, or did not, as a change.
type ChangeReason uint8

// Reasons, shown in the Revisit pane.
const (
	ReasonNone        ChangeReason = iota // nothing moved, or no comparison yet
	ReasonText                            // the article body was edited
	ReasonHeadline                        // the headline changed
	ReasonBoilerplate                     // only the page around the article moved
	ReasonSmallEdit                       // a few words of the body, ignored by the small-edits policy
	ReasonSimHash                         // no article (fallback) or no digest: the seed's SimHash rule
)

// String names the reason for the console.
func (r ChangeReason) String() string {
	switch r {
	case ReasonText:
		return "main text edited"
	case ReasonHeadline:
		return "headline changed"
	case ReasonBoilerplate:
		return "only boilerplate moved"
	case ReasonSmallEdit:
		return "small edit (ignored)"
	case ReasonSimHash:
		return "simhash"
	}
	return "-"
}

// Small-edit policies (Config.SmallEdits).
const (
	// SmallEditsCount counts every edit of the article body, however small: a
	// corrected figure or a reworded sentence is a new version. The default.
	SmallEditsCount = "count"
	// SmallEditsIgnore counts a body edit only when it also moves the SimHash past
	// the threshold; typo fixes and a changed word or three are ignored.
	SmallEditsIgnore = "ignore"
)

// checkSmallEdits validates a small-edits policy name.
func checkSmallEdits(s string) error {
	switch s {
	case "", SmallEditsCount, SmallEditsIgnore:
		return nil
	}
	return fmt.Errorf("revisit: small_edits %q: want %q or %q", s, SmallEditsCount, SmallEditsIgnore)
}

// judge compares a fetch with the page's last comparable state: whether it changed,
// and why. p.Distance must already hold the SimHash distance.
func (tr *Tracker) judge(p *Page, o Outcome) (bool, ChangeReason) {
	seed := p.Distance > tr.cfg.Threshold
	if !o.HasDigest || !p.HasDigest || o.Sig.Fallback || p.Sig.Fallback {
		if seed {
			return true, ReasonSimHash
		}
		return false, ReasonNone
	}
	switch {
	case o.Sig.Title != p.Sig.Title:
		return true, ReasonHeadline
	case o.Sig.Text != p.Sig.Text:
		if tr.cfg.SmallEdits == SmallEditsIgnore && !seed {
			return false, ReasonSmallEdit
		}
		return true, ReasonText
	case o.Sig.Page != p.Sig.Page:
		return false, ReasonBoilerplate
	}
	return false, ReasonNone
}

// keepSig stores a usable fetch's signature as the page's reference.
func (p *Page) keepSig(o Outcome) {
	if o.OK && o.HasDigest {
		p.Sig, p.HasDigest = o.Sig, true
	}
}

// LastChange is the last comparison of a page that counted as a change: when, its
// SimHash distance and why (the Revisit pane's evidence).
type LastChange struct {
	At       time.Time
	Distance int // -1 before any change
	Reason   ChangeReason
}
