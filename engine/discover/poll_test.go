package discover

import (
	"fmt"
	"math"
	"testing"
	"time"
)

func TestPollerLearnsEachSourcesRate(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		perDay int // new URLs per day the source shows
		want   time.Duration
		slack  float64
	}{
		{"a feed that gains an item an hour is polled about hourly", 24, time.Hour, 0.35},
		{"a feed that gains four a day, about every six hours", 4, 6 * time.Hour, 0.35},
		{"a feed that never changes is polled at the longest interval", 0, 24 * time.Hour, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &Poller{}
			at := t0
			p.Observe("f", at, 50, true) // first poll: backlog, not a rate
			for i := 0; i < 14*24; i++ {
				at = at.Add(time.Hour)
				n := 0
				if tc.perDay > 0 && i%(24/tc.perDay) == 0 {
					n = 1
				}
				p.Observe("f", at, n, false)
			}
			got := p.Interval("f")
			lo, hi := float64(tc.want)*(1-tc.slack), float64(tc.want)*(1+tc.slack)
			if float64(got) < lo || float64(got) > hi {
				t.Errorf("interval %v, want about %v (rate %.2f/h)", got, tc.want, p.Rate("f"))
			}
		})
	}
}

func TestPollerSplitsABudgetBySquareRoot(t *testing.T) {
	p := &Poller{Budget: 10, MaxInterval: 1000 * time.Hour, MinInterval: time.Second}
	t0 := busyAndSlow(p)
	busy, slow := p.Interval("busy"), p.Interval("slow")
	// √16 : √1 = 4 : 1 of a 10/h budget: 8/h and 2/h.
	if r := float64(slow) / float64(busy); r < 3.3 || r > 4.7 {
		t.Errorf("intervals busy %v slow %v (ratio %.2f), want a ratio of about 4 (√ of the rates' 16)", busy, slow, r)
	}
	if f := 1/busy.Hours() + 1/slow.Hours(); f < 9 || f > 11 {
		t.Errorf("%.1f polls per hour, want the budget of 10", f)
	}
	p.Observe("busy", t0.Add(201*time.Hour), 50, true)
	if got := p.Interval("busy"); got != time.Second {
		t.Errorf("after a poll full of new URLs: %v, want the minimum interval", got)
	}
}

// A feed that changes hourly is polled about hourly. Here the poller
// drives its own schedule (each poll at Next, seeing the items published since the
// last one), as the engine does, rather than being fed hourly observations: a source
// publishing one item an hour settles at about an hourly interval, one publishing an
// item a day at about a daily one, within the bounds.
func TestPollerSettlesOnThePublishingPace(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		every time.Duration // one new item each
		want  time.Duration
	}{
		{"one item an hour: polled about hourly", time.Hour, time.Hour},
		{"one item a day: polled about daily", 24 * time.Hour, 24 * time.Hour},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &Poller{MinInterval: time.Minute, MaxInterval: 7 * 24 * time.Hour}
			published := func(at time.Time) int { return int(at.Sub(t0) / tc.every) }
			at, seen := t0, 0
			p.Observe("f", at, 0, false)
			var intervals []time.Duration
			for at.Before(t0.Add(60 * 24 * time.Hour)) {
				at = p.Next("f")
				n := published(at)
				p.Observe("f", at, n-seen, false)
				seen = n
				intervals = append(intervals, p.Interval("f"))
			}
			// The last polls' mean interval (one poll alone may sit just before or
			// after an item).
			var sum time.Duration
			last := intervals[max(0, len(intervals)-10):]
			for _, d := range last {
				sum += d
			}
			got := sum / time.Duration(len(last))
			if got < tc.want*65/100 || got > tc.want*135/100 {
				t.Errorf("settled at a poll every %v (rate %.3f/h), want about %v", got, p.Rate("f"), tc.want)
			}
		})
	}
}

// Without a budget the Poller spends what polling each source once per new URL would
// (Σ rates) but splits it by the square-root rule: the quiet source is read more
// often than once per item, the busy one less, for a lower mean delay. Before, each
// source got exactly its own rate (busy every 1/16 h, slow every hour).
func TestPollerWithoutABudgetSplitsTheSameSpendBySquareRoot(t *testing.T) {
	p := &Poller{MaxInterval: 1000 * time.Hour, MinInterval: time.Second}
	busyAndSlow(p)
	busy, slow := p.Interval("busy"), p.Interval("slow")
	spend := 1/busy.Hours() + 1/slow.Hours()
	rates := p.Rate("busy") + p.Rate("slow")
	if spend < 0.95*rates || spend > 1.05*rates {
		t.Errorf("%.2f polls per hour, want the %.2f new URLs per hour the sources show", spend, rates)
	}
	if r := float64(slow) / float64(busy); r < 3.3 || r > 4.7 {
		t.Errorf("intervals busy %v slow %v (ratio %.2f), want about 4 (√16), not 16", busy, slow, r)
	}
	// Mean delay per item, Σ r_i/(2 f_i) / Σ r_i, against one poll per item each.
	delay := (p.Rate("busy")*busy.Hours() + p.Rate("slow")*slow.Hours()) / (2 * rates)
	if own := 2 / (2 * rates); delay >= own {
		t.Errorf("mean delay %.3f h, want below the %.3f h of polling each source at its own rate", delay, own)
	}
	// A source no longer polled takes no share: alone, slow is read once per item.
	p.Forget("busy")
	if got, want := p.Interval("slow").Hours(), 1/p.Rate("slow"); got < 0.95*want || got > 1.05*want {
		t.Errorf("after Forget(busy): slow every %.2f h, want %.2f h (its own rate)", got, want)
	}
}

// busyAndSlow feeds p 200 hours of two sources, "busy" with 16 new URLs an hour and
// "slow" with one, and returns the hour it started.
func busyAndSlow(p *Poller) time.Time {
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	for _, src := range []string{"busy", "slow"} {
		p.Observe(src, t0, 0, false)
	}
	for h := 1; h <= 200; h++ {
		at := t0.Add(time.Duration(h) * time.Hour)
		p.Observe("busy", at, 16, false) // 16/h
		if h%4 == 0 {
			p.Observe("slow", at, 4, false) // 1/h
		}
	}
	return t0
}

func TestPollerSumsFollowEveryChange(t *testing.T) {
	// The split's sums are kept as sources change (a read is O(1)); after any mix of
	// reads, shadows, forgets and restarts' imports they are the sums over the
	// sources as they are.
	p := &Poller{}
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	rng := uint64(1)
	next := func(n int) int { rng = rng*6364136223846793005 + 1442695040888963407; return int(rng>>33) % n }
	for i := range 20000 {
		src := fmt.Sprint("s", next(300))
		at := t0.Add(time.Duration(i) * time.Minute)
		switch next(12) {
		case 0:
			p.Shadow(src, next(2) == 0)
		case 1:
			p.Forget(src)
		case 2:
			p.Interval(src) // sums afresh when due (every sumRefresh changes, after an Import)
		case 3:
			if next(50) == 0 { // a restart's state, taken in over what is there
				p.Import(map[string]PollState{src: {Last: at, Items: float64(next(9)), Span: 6}})
			}
		default:
			p.Observe(src, at, next(4), false)
		}
		if i%997 != 0 {
			continue
		}
		p.mu.Lock()
		var sq, r float64
		for _, s := range p.sources {
			if !s.shadow {
				sq += math.Sqrt(p.rate(s))
				r += p.rate(s)
			}
		}
		if math.Abs(sq-p.sumSqrt) > 1e-6*max(sq, 1) || math.Abs(r-p.sumRate) > 1e-6*max(r, 1) {
			t.Fatalf("after %d changes: sums %.6f, %.6f, want %.6f, %.6f", i, p.sumSqrt, p.sumRate, sq, r)
		}
		p.mu.Unlock()
	}
}

// BenchmarkPollerRead is one read's bookkeeping (Observe, then Interval) among n
// sources: constant in n.
func BenchmarkPollerRead(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			p := &Poller{}
			t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
			srcs := make([]string, n)
			for i := range srcs {
				srcs[i] = fmt.Sprint("http://s", i, ".example/feed")
				p.Observe(srcs[i], t0, 0, false)
				p.Observe(srcs[i], t0.Add(time.Hour), i%5, false)
			}
			b.ResetTimer()
			for i := range b.N {
				s := srcs[i%n]
				p.Observe(s, t0.Add(time.Duration(i)*time.Second), 1, false)
				p.Interval(s)
			}
		})
	}
}

// A parked source (its site removed by the operator) takes no share of the polls and
// comes back at the pace it had: the pause is not read as a silence, nor the
// backlog its first poll back brings as a busy spell.
func TestPollerParkedSourceComesBackAtItsPace(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	p := &Poller{Budget: 10}
	at := t0
	p.Observe("hourly", at, 50, true)
	p.Observe("other", at, 50, true)
	for i := 0; i < 7*24; i++ {
		at = at.Add(time.Hour)
		p.Observe("hourly", at, 1, false)
		p.Observe("other", at, 1, false)
	}
	rate, shared := p.Rate("hourly"), p.Interval("other")

	parked := p.Park([]string{"hourly"})
	if p.Knows("hourly") {
		t.Fatal("a parked source is still polled")
	}
	if got := p.Interval("other"); got >= shared {
		t.Errorf("the other source's interval %v with the first parked, want below %v: the parked one's share goes to it", got, shared)
	}

	at = at.Add(3 * 24 * time.Hour) // three days away, 72 articles published meanwhile
	p.Unpark(parked)
	if !p.Next("hourly").Before(at) {
		t.Errorf("a source taken back is due at %v, want now (%v)", p.Next("hourly"), at)
	}
	p.Observe("hourly", at, 50, true) // the backlog, its list full
	if got := p.Rate("hourly"); math.Abs(got-rate) > 0.01*rate {
		t.Errorf("rate %.3f/h after the pause and its backlog, want the %.3f/h learned before", got, rate)
	}
	if got := p.Interval("hourly"); got <= time.Minute {
		t.Errorf("interval %v after the backlog's read, want its learned pace, not the shortest (a full list after a pause is no busy spell)", got)
	}
	at = at.Add(time.Hour)
	p.Observe("hourly", at, 1, false)
	if got := p.Rate("hourly"); math.Abs(got-rate) > 0.1*rate {
		t.Errorf("rate %.3f/h an hour on, want about the %.3f/h learned before", got, rate)
	}
}

// A fetch budget is spent: the reads get what the new URLs expected leave of it, so
// that reads plus new URLs come to the budget once the rates are learned, and the
// reads still get a floor when the new URLs alone would take all of it.
func TestPollerSpendsAFetchBudget(t *testing.T) {
	p := &Poller{FetchBudget: 30, MaxInterval: 1000 * time.Hour, MinInterval: time.Second}
	busyAndSlow(p) // 16 and 1 new URLs an hour
	reads := 1/p.Interval("busy").Hours() + 1/p.Interval("slow").Hours()
	newURLs := p.Rate("busy") + p.Rate("slow")
	if got := reads + newURLs; got < 29 || got > 31 {
		t.Errorf("%.1f reads + %.1f new URLs an hour = %.1f fetches, want the fetch budget of 30", reads, newURLs, got)
	}
	busy, slow := p.Interval("busy"), p.Interval("slow")
	if r := float64(slow) / float64(busy); r < 3.3 || r > 4.7 {
		t.Errorf("intervals busy %v slow %v (ratio %.2f), want the square-root split (about 4)", busy, slow, r)
	}
	tight := &Poller{FetchBudget: 10, MaxInterval: 1000 * time.Hour, MinInterval: time.Second}
	busyAndSlow(tight)
	if reads := 1/tight.Interval("busy").Hours() + 1/tight.Interval("slow").Hours(); reads < 2.9 || reads > 3.1 {
		t.Errorf("new URLs (17/h) over the fetch budget (10/h): %.2f reads an hour, want the floor of 3", reads)
	}
	both := &Poller{Budget: 5, FetchBudget: 20, MaxInterval: 1000 * time.Hour, MinInterval: time.Second}
	busyAndSlow(both)
	if reads := 1/both.Interval("busy").Hours() + 1/both.Interval("slow").Hours(); reads < 4.5 || reads > 5.5 {
		t.Errorf("poll budget 5 with a fetch budget of 20: %.2f reads an hour, want the poll budget's 5", reads)
	}
}

// With KeepPace a read that came late (queued behind other fetches) is not a longer
// interval: its lateness, up to half the interval, comes off the next one, so the
// reads keep the budget's pace. Without it the next interval is the same whatever
// the wait.
func TestPollerKeepsPaceAfterALateRead(t *testing.T) {
	for _, keep := range []bool{false, true} {
		p := &Poller{Budget: 10, MaxInterval: 1000 * time.Hour, MinInterval: time.Second, KeepPace: keep}
		t0 := busyAndSlow(p)
		at := t0.Add(200 * time.Hour)
		asked := p.sources["slow"].want
		due := at.Add(p.Interval("slow")) // what its last read asked for
		late := asked / 4
		p.Observe("slow", due.Add(late), 0, false)
		got := p.Interval("slow")
		plain := got
		if keep {
			plain = got + late
		}
		if d := plain - p.interval(p.sources["slow"]); d < -time.Second || d > time.Second {
			t.Errorf("KeepPace %v: interval %v after a read %v late, want %v less", keep, got, late, map[bool]time.Duration{false: 0, true: late}[keep])
		}
		// Far behind: at most half the interval asked comes off.
		prev := p.sources["slow"].want
		p.Observe("slow", at.Add(10*asked), 0, false)
		if got, full := p.Interval("slow"), p.interval(p.sources["slow"]); keep && (got < full-prev/2-time.Second || got > full-prev/2+time.Second) {
			t.Errorf("a read far behind: interval %v, want %v less half of the %v asked", got, full, prev)
		}
	}
}

// A source read late every time by the same wait (a lane that always has other
// fetches ahead of it) is still read at the budget's pace: each read's lateness is
// measured from the time it was due, the interval KeepPace asked for, not the
// interval before KeepPace took the last lateness off. Measured from the latter, a
// steady wait is taken off only every other read and the reads fall short of the
// budget by half the wait an interval (simulation of the discovery bench, seed 3:
// 3% of the fetch budget left unspent).
func TestPollerKeepsPaceWhenEveryReadIsLate(t *testing.T) {
	for _, keep := range []bool{false, true} {
		// One source: it gets the whole poll budget, one read every 6 minutes.
		p := &Poller{Budget: 10, MaxInterval: 1000 * time.Hour, MinInterval: time.Second, KeepPace: keep}
		wait := time.Minute
		at := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
		p.Observe("f", at, 0, false)
		p.Observe("f", at.Add(6*time.Minute), 1, false)
		at = at.Add(6 * time.Minute)
		first := at
		const reads = 200
		for range reads {
			at = at.Add(p.Interval("f") + wait) // due, then the wait ahead of it
			p.Observe("f", at, 1, false)
		}
		perHour := reads / at.Sub(first).Hours()
		if keep && (perHour < 9.8 || perHour > 10.2) {
			t.Errorf("KeepPace, every read %v late: %.2f reads an hour, want the budget's 10", wait, perHour)
		}
		if !keep && perHour > 8.8 {
			t.Errorf("without KeepPace, every read %v late: %.2f reads an hour, want one read per 7 minutes (8.6)", wait, perHour)
		}
	}
}

// A fetch budget pays once for an article two sources list: a site's feed and
// sitemap both bring each of its 4 articles an hour as news, but only the first
// read fetches it. Counted twice, the reads would get 20 - 8 = 12 of a budget of
// 20 fetches an hour; counted once, 20 - 4 = 16, and each source is read more often.
func TestAFetchBudgetPaysOnceForWhatTwoSourcesList(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	run := func(secondFresh bool) (time.Duration, PollState) {
		p := &Poller{FetchBudget: 20}
		at := t0
		p.Observe("feed", at, 0, false)
		p.Observe("sitemap", at, 0, false)
		for range 7 * 24 {
			at = at.Add(time.Hour)
			p.ObserveRead("feed", at, 4, 4, false)
			fresh := 0
			if secondFresh {
				fresh = 4
			}
			p.ObserveRead("sitemap", at, 4, fresh, false)
		}
		return p.Interval("feed"), p.Export()["sitemap"]
	}
	once, st := run(false)
	twice, _ := run(true)
	// 16 reads an hour over two equal sources: each every 7.5 min; 12: every 10.
	if once > 8*time.Minute || twice < 9*time.Minute {
		t.Errorf("feed read every %v when the sitemap's copies are counted once, %v when twice: want about 7.5 and 10 minutes", once, twice)
	}
	// What the sitemap brought that another path had first survives a restart.
	q := &Poller{FetchBudget: 20}
	q.Import(map[string]PollState{"sitemap": st})
	if got := q.Export()["sitemap"]; math.Abs(got.Known-st.Known) > 1e-9 || st.Known < st.Items/2 {
		t.Errorf("sitemap's known share %.2f of %.2f, restored %.2f: want most of it known, restored as it was", st.Known, st.Items, got.Known)
	}
}
