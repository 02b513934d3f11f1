package engine

import (
	"net/url"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
)

// revisitScale is how much faster than real time the test web runs: a page changing
// once a web day changes every 4.3 real seconds, the fastest (48 a day) ten times a
// second, so a few seconds of refetching see both changed and unchanged intervals.
const revisitScale = 20000

// revisitWeb is a small sandbox web for revisit tests: a few sites with short
// listings, no faults and no dead names (every fetch is comparable), anti-bot rule on.
func revisitWeb(t *testing.T, seed int64) *sandbox.Sandbox {
	t.Helper()
	cfg := sandbox.DefaultConfig()
	cfg.Seed, cfg.Hosts, cfg.Scale = seed, 7, revisitScale
	cfg.Faults.Shares = nil
	cfg.Small()
	sb, err := sandbox.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

// revisitOptions crawls sb with the seed policy on a fast revisit clock.
func revisitOptions(t *testing.T, sb *sandbox.Sandbox) config.Options {
	o := testDefaults()
	for _, s := range sb.Info().Sites {
		o.Seeds = append(o.Seeds, s.Entry)
	}
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	o.DNSServers = []string{sb.DNSAddr()}
	o.AllowPrivate = []string{"127.0.0.0/8"}
	gap := time.Duration(float64(sb.Config().AntiBot.HumanGap) / revisitScale)
	o.Lanes.Max = 8
	o.Lanes.DelayMin, o.Lanes.DelayMax = gap*5/4, gap*3
	o.HostRate = revisitScale
	atWebPace(&o, revisitScale)
	o.Revisit.Policy = revisit.PolicySeed
	o.Revisit.Every = 50 * time.Millisecond
	o.Revisit.Initial = 400 * time.Millisecond
	o.Revisit.MinInterval = 300 * time.Millisecond
	for _, c := range revisit.Classes {
		o.Revisit.Windows[c] = 0
	}
	return o
}

// atWebPace sets the crawl's adaptive politeness and robots.txt's retry to a web
// that runs scale times faster than real time, and gives a DNS answer the fetch
// timeout. Left at their real-time defaults, a starved box's slow answers (300 ms on
// loopback: 100 web minutes at 20,000x) set a host's gap to delay_factor times that,
// three in a row backed the host off for a real minute (two web weeks), and a
// robots.txt that timed out deferred its site as long: minutes of a test spent
// waiting on the box's own slowness.
func atWebPace(o *config.Options, scale float64) {
	o.Politeness = o.Politeness.Scaled(scale)
	o.Etiquette = o.Etiquette.Scaled(scale)
	o.DNS.Timeout = o.Fetch.Timeout // a patience for a loaded box, not a property under test
}

// openPages opens a closed crawl's store and lists its pages' URLs; the caller
// closes the store.
func openPages(t *testing.T, path string) (*store.Store, []string) {
	t.Helper()
	st, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	urls, err := st.PageURLs()
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	return st, urls
}

// revisitRows reads every page's revisit state from a closed crawl's store.
func revisitRows(t *testing.T, path string) map[string]revisit.Page {
	t.Helper()
	st, urls := openPages(t, path)
	defer st.Close()
	rows, err := st.Revisits(urls)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]revisit.Page{}
	for _, r := range rows {
		p := revisit.Page{URL: r.URL, Class: r.Class, T: r.T, X: r.X, Last: r.Last, Next: r.Next, Hash: r.Hash,
			HasHash: r.HasHash, First: r.First, Fetches: r.Fetches, Distance: r.Distance, Freq: r.Freq, Price: r.Price}
		if err := revisit.UnmarshalPolicyState(&p, r.Policy); err != nil {
			t.Fatal(err)
		}
		out[r.URL] = p
	}
	return out
}

// truthFetches groups the sandbox's answered page requests by URL, in order.
func truthFetches(sb *sandbox.Sandbox) map[string][]sandbox.Request {
	out := map[string][]sandbox.Request{}
	for _, r := range sb.Truth().Requests() {
		if r.Kind == "robots" || r.Status == 0 {
			continue
		}
		u, err := url.Parse(r.URL)
		if err != nil {
			continue
		}
		out[u.String()] = append(out[u.String()], r)
	}
	for _, rs := range out {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Start.Before(rs[j].Start) })
	}
	return out
}

// intervalTruth says what happened to a page between two answered requests a and b:
// the sandbox picks the content version somewhere inside each request, so a change
// inside either request makes the interval ambiguous.
type intervalTruth int

const (
	truthUnchanged intervalTruth = iota
	truthChanged
	truthAmbiguous
)

func judgeInterval(changes []time.Time, a, b sandbox.Request) intervalTruth {
	changed := false
	for _, c := range changes {
		switch {
		case !c.Before(a.Start) && !c.After(a.End), !c.Before(b.Start) && !c.After(b.End):
			return truthAmbiguous
		case c.After(a.End) && c.Before(b.Start):
			changed = true
		}
	}
	if changed {
		return truthChanged
	}
	return truthUnchanged
}

// refetchTarget is how many refetches a test waits for: enough for the rates it
// checks to mean something, fewer with -short.
func refetchTarget(full, short int64) int64 {
	if testing.Short() {
		return short
	}
	return full
}

// scorable counts the intervals between the sandbox's answers to the same page that
// compareWithTruth can score (pages within the history's length), by what truly
// happened in them: the evidence a crawl has gathered so far.
func scorable(sb *sandbox.Sandbox) (unchanged, changed int) {
	for u, reqs := range truthFetches(sb) {
		if len(reqs) > revisit.DefaultHistoryLen+1 {
			continue
		}
		changes := sb.Truth().Changes(u)
		for i := 1; i < len(reqs); i++ {
			switch judgeInterval(changes, reqs[i-1], reqs[i]) {
			case truthUnchanged:
				unchanged++
			case truthChanged:
				changed++
			}
		}
	}
	return unchanged, changed
}

// comparison is how a crawl's verdicts matched the sandbox's change times.
type comparison struct {
	unchanged, falseChanges int // truly unchanged intervals, and those called changed
	changed, missed         int // truly changed intervals, and those called unchanged
	ambiguous               int // a change fell inside a request: not scored
}

// compareWithTruth lines each page's visit history up with the sandbox's requests
// for it (every fetch of these pages is comparable: no faults) and scores the
// verdicts. Pages with more fetches than the history keeps are skipped.
func compareWithTruth(t *testing.T, sb *sandbox.Sandbox, rows map[string]revisit.Page) comparison {
	t.Helper()
	truth := truthFetches(sb)
	var c comparison
	for u, p := range rows {
		reqs := truth[u]
		if len(reqs) < p.Fetches {
			t.Fatalf("%s: the engine counted %d fetches, the sandbox answered %d", u, p.Fetches, len(reqs))
		}
		if p.Fetches > revisit.DefaultHistoryLen+1 || len(p.History) != p.Fetches-1 {
			continue
		}
		changes := sb.Truth().Changes(u)
		for i, v := range p.History {
			switch judgeInterval(changes, reqs[i], reqs[i+1]) {
			case truthUnchanged:
				c.unchanged++
				if v.Changed {
					c.falseChanges++
				}
			case truthChanged:
				c.changed++
				if !v.Changed {
					c.missed++
				}
			default:
				c.ambiguous++
			}
		}
	}
	return c
}
