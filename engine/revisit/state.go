package revisit

import (
	"fmt"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/page"
)

// Never is the "huge value" the scheduler writes into a page's next so that it is
// not picked twice while it waits in the crawl queue (M2, seed 001 step 3). It is
// also the next of a page past its class window. It fits in int64 Unix nanoseconds.
var Never = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)

// Page is the revisit state of one page (M2). T, X, Last, Next and Hash are the
// seed's five parameters; the rest serve the class window, the estimator policy and
// the console.
type Page struct {
	URL   string
	Class string // soc, web_com, web_net, web_edu or web_gov (see Classifier)

	T    time.Duration // time observed since the first fetch (seed "t")
	X    int           // changes seen, starting at 1 (seed "x")
	Last time.Time     // last fetch whose result was comparable (seed "last")
	Next time.Time     // when the page is due again (seed "next")
	Hash uint64        // SimHash of the main text at Last (seed "hash")

	HasHash  bool      // Hash holds a fingerprint; false while the page has shown no text
	First    time.Time // first fetch; the class window counts from here (M2/M3)
	Fetches  int       // fetches observed, including 304s and unknown ones
	Distance int       // Hamming distance at the last comparison, -1 before any
	History  []Visit   // recent comparable intervals, oldest first, for the estimator
	Rate     float64   // EstimatorPolicy: estimated changes per day (EstimateRate), for the console
	Freq     float64   // EstimatorPolicy: the page's share of the budget, fetches per day (0: untracked)
	Price    float64   // EstimatorPolicy: the fetch price μ Freq was set at (0: Freq is the floor)
	Probes   int       // EstimatorPolicy: short probe visits asked for so far
	Fresh    float64   // EstimatorPolicy: expected freshness at Freq (see Outlook); -1: none
	Age      float64   // EstimatorPolicy: expected age at Freq, days
	Behind   bool      // EstimatorPolicy: probably changes over FollowFactor × Freq

	Sig       page.Signature // change signature at Last (digests beside Hash)
	HasDigest bool           // Sig holds digests; false for state kept before they existed
	Reason    ChangeReason   // why the last comparison counted as a change, or did not
	Change    LastChange     // the last comparison that counted as a change
}

// Visit is one interval between two comparable fetches and whether the page was seen
// to change in it: the irregular access history Cho & Garcia-Molina estimate from.
type Visit struct {
	Interval time.Duration
	Changed  bool
}

// Outcome is what one fetch told about a page's content.
type Outcome struct {
	NotModified bool   // a 304 to a conditional GET (ETag/If-Modified-Since): unchanged
	Hash        uint64 // page.Fingerprint of the body
	OK          bool   // Hash is valid; false when the body had no usable text
	// Sig is the fetch's change signature (Sign) when HasDigest; Sig.SimHash equals
	// Hash. Without it the seed's SimHash rule decides.
	Sig       page.Signature
	HasDigest bool
}

// Verdict is how Tracker.Observe classified a fetch.
type Verdict int

// Verdicts of Tracker.Observe.
const (
	VerdictFirst     Verdict = iota // first fetch of the page
	VerdictChanged                  // Hamming distance above the threshold: x += 1
	VerdictUnchanged                // within the threshold, or a 304
	VerdictUnknown                  // no usable text: nothing learned, state kept
)

// String names the verdict for logs and the console.
func (v Verdict) String() string {
	switch v {
	case VerdictFirst:
		return "first"
	case VerdictChanged:
		return "changed"
	case VerdictUnchanged:
		return "unchanged"
	default:
		return "unknown"
	}
}

// Config holds the revisit settings (M2); the zero value of a field means its default.
type Config struct {
	// Initial is the delay from the first fetch to the second (seed "next = now +
	// initial"). Default 1h.
	Initial time.Duration
	// Threshold is the Hamming distance above which a page counts as changed
	// (revisit.threshold). Default 5.
	Threshold int
	// MinInterval is the shortest revisit interval; it keeps a page fetched twice in
	// one instant (t = 0) from becoming due again at once. Default 1 minute, the
	// scheduler's period.
	MinInterval time.Duration
	// HistoryLen is how many recent intervals a page keeps for the estimator.
	// Default 32.
	HistoryLen int
	// SmallEdits is the small-edit policy: SmallEditsCount (default) counts every
	// edit of the article body, SmallEditsIgnore only those that also move the
	// SimHash past Threshold (see change.go).
	SmallEdits string
	// Windows are the per-class active windows (M2/M3); nil means DefaultWindows().
	// A page whose first fetch is older than its class window is not revisited.
	Windows Windows
}

// Defaults for Config.
const (
	DefaultInitial     = time.Hour
	DefaultThreshold   = 5
	DefaultMinInterval = time.Minute
	DefaultHistoryLen  = 32
)

// withDefaults fills zero fields.
func (c Config) withDefaults() Config {
	if c.Initial <= 0 {
		c.Initial = DefaultInitial
	}
	if c.Threshold <= 0 {
		c.Threshold = DefaultThreshold
	}
	if c.MinInterval <= 0 {
		c.MinInterval = DefaultMinInterval
	}
	if c.HistoryLen <= 0 {
		c.HistoryLen = DefaultHistoryLen
	}
	if c.Windows == nil {
		c.Windows = DefaultWindows()
	}
	if c.SmallEdits == "" {
		c.SmallEdits = SmallEditsCount
	}
	return c
}

// Tracker applies fetch outcomes to page state and asks its Policy for the next due
// time. It holds no per-page data itself; the caller stores Pages (the lead's SQLite
// store, or MemStore in tests and the bench). Safe for concurrent use on distinct pages
// if the Policy is.
type Tracker struct {
	cfg    Config
	policy Policy
}

// NewTracker returns a Tracker with cfg (zero fields defaulted) and policy (nil means
// SeedPolicy, the seed's rule, which needs no budget; NewPolicy builds the configured
// one).
func NewTracker(cfg Config, policy Policy) (*Tracker, error) {
	cfg = cfg.withDefaults()
	if cfg.Threshold >= 64 {
		return nil, fmt.Errorf("revisit: threshold %d: must be below 64 (bits in a SimHash)", cfg.Threshold)
	}
	if err := checkSmallEdits(cfg.SmallEdits); err != nil {
		return nil, err
	}
	if policy == nil {
		policy = SeedPolicy{}
	}
	return &Tracker{cfg: cfg, policy: policy}, nil
}

// Config returns the tracker's settings with defaults filled in.
func (tr *Tracker) Config() Config { return tr.cfg }

// Policy returns the policy that sets next.
func (tr *Tracker) Policy() Policy { return tr.policy }

// Observe applies one fetch of p at now (M2, seed 001 steps 2.3-2.7):
//
//	first fetch:  t=0, x=1, last=now, next=now+initial, hash=h
//	later:        t += now-last; x += 1 if Hamming(h, hash) > threshold;
//	              last=now, next=last+t/x (SeedPolicy), hash=h
//
// A 304 is a comparison that found no change. An outcome without a usable fingerprint
// (empty, binary, mis-decoded body) is never taken as "unchanged": it is unknown, so
// t, x, last and hash stay as they were and the next comparable fetch is compared with
// the last real fingerprint over the whole span. (The alternative, a hash of the raw
// bytes, would count every rotating ad as a change, and empty bodies as "unchanged".)
// A page past its class window gets next = Never. A policy that is a FirstPlanner
// (the estimator, from what the page's site showed) may put the first revisit later
// than initial, never sooner.
func (tr *Tracker) Observe(p *Page, now time.Time, o Outcome) Verdict {
	p.Fetches++
	if p.Fetches == 1 {
		p.First, p.T, p.X, p.Last = now, 0, 1, now
		p.Hash, p.HasHash, p.Distance = o.Hash, o.OK && !o.NotModified, -1
		p.Change = LastChange{Distance: -1}
		p.keepSig(o)
		first := tr.cfg.Initial
		if fp, ok := tr.policy.(FirstPlanner); ok {
			// A policy that knows the page's site plans its first revisit in its
			// budget; never sooner than Initial.
			first = max(first, fp.First(p, now))
		}
		p.Next = now.Add(first)
		tr.retireIfPastWindow(p, now)
		return VerdictFirst
	}
	verdict := VerdictUnknown
	switch {
	case o.NotModified:
		// A 304 is a comparison that found no change, if there is a fingerprint to keep.
		if p.HasHash {
			verdict = VerdictUnchanged
			tr.advance(p, now, false)
		}
	case !o.OK:
		// Unknown: nothing learned about the content.
	case !p.HasHash:
		// The first usable fingerprint: a baseline, not a comparison. The time before it
		// saw no comparable content, so it does not count towards t.
		p.Hash, p.HasHash, p.Last = o.Hash, true, now
		p.keepSig(o)
	default:
		p.Distance = page.Distance(o.Hash, p.Hash)
		changed, reason := tr.judge(p, o)
		p.Reason = reason
		if changed {
			p.Change = LastChange{At: now, Distance: p.Distance, Reason: reason}
			p.X++
			verdict = VerdictChanged
		} else {
			verdict = VerdictUnchanged
		}
		tr.advance(p, now, changed)
		p.Hash = o.Hash
		p.keepSig(o)
	}
	interval := tr.cfg.Initial
	if p.T > 0 {
		// Only once an interval has been compared does the policy have anything to go
		// on; before that (unknown fetches after the first) the initial delay holds.
		interval = tr.policy.Reschedule(p, now)
	}
	p.Next = now.Add(tr.bound(interval))
	tr.retireIfPastWindow(p, now)
	return verdict
}

// bound keeps an interval at least MinInterval: a policy's arithmetic (t = 0, a
// huge rate) never makes a page due at once over and over. The other side needs no
// clamp: a page whose next falls past its class window is retired
// (retireIfPastWindow), so no live page waits longer than its window.
func (tr *Tracker) bound(interval time.Duration) time.Duration {
	return max(interval, tr.cfg.MinInterval)
}

// advance moves t and last to now and records the interval in the page's history.
func (tr *Tracker) advance(p *Page, now time.Time, changed bool) {
	d := now.Sub(p.Last)
	if d < 0 {
		d = 0
	}
	p.T += d
	p.Last = now
	p.History = append(p.History, Visit{Interval: d, Changed: changed})
	if over := len(p.History) - tr.cfg.HistoryLen; over > 0 {
		p.History = append(p.History[:0], p.History[over:]...)
	}
}

// retireIfPastWindow sets next to Never once the page's class window has closed, and
// tells the policy to forget the page.
func (tr *Tracker) retireIfPastWindow(p *Page, now time.Time) {
	if !tr.cfg.Windows.Active(p.Class, p.First, now) || !tr.cfg.Windows.Active(p.Class, p.First, p.Next) {
		tr.policy.Forget(p)
		p.Next = Never
	}
}
