package stall

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// fakeClock is a frozen clock the test moves forward.
type fakeClock struct {
	mu  sync.Mutex
	off time.Duration
}

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return epoch.Add(c.off)
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.off += d
	c.mu.Unlock()
}

// The probe counts how late it woke (beyond timer noise) while requests are out,
// and stops once none has been out for a while.
func TestStallMeterCountsLateWakeUpsAndStopsWhenIdle(t *testing.T) {
	clk := &fakeClock{}
	ticks := make(chan time.Duration) // how late the probe's next wake-up is
	m := &Meter{now: clk.now, sleep: func(d time.Duration) { clk.advance(d + <-ticks) }}
	m.Hold()
	for _, l := range []time.Duration{0, 50 * time.Millisecond, time.Millisecond, 0} {
		ticks <- l // received: every wake-up before it is counted
	}
	if got := m.Stalled(); got != 50*time.Millisecond {
		t.Fatalf("stalled %v after wake-ups late by 0, 50ms, 1ms, want 50ms (1ms is timer noise)", got)
	}
	m.Release()
	for m.running.Load() { // idle wake-ups until stallLinger has passed
		select {
		case ticks <- 600 * time.Millisecond:
		default:
			runtime.Gosched()
		}
	}
	m.Hold() // a request again: the probe runs again
	ticks <- 0
	m.Release()
}

// A box at a high load stops a process in slices of milliseconds. Of a process
// stopped 10 ms in every 11, or 30 in every 33, the probe counts nearly all the
// time it stood still (a tenth and three quarters when it looked only once every
// 10 ms); a rare stop of 300 ms is counted whole as before. Stops of a few
// milliseconds between runs as long are counted in part (below stallSlack they
// are noise): they delay an answer by about as much CPU as the crawler spends on
// it, far from the 100 ms that a rising latency needs (riseFloor).
func TestStallMeterCountsShortFrequentStalls(t *testing.T) {
	for _, c := range []struct {
		stop, run time.Duration
		atLeast   float64 // share of the stopped time counted
	}{
		{10 * time.Millisecond, time.Millisecond, 0.8},
		{30 * time.Millisecond, 3 * time.Millisecond, 0.8},
		{300 * time.Millisecond, 700 * time.Millisecond, 0.95},
	} {
		t.Run(fmt.Sprintf("stopped %v of every %v", c.stop, c.stop+c.run), func(t *testing.T) {
			// The stops, as [start, end) from the clock's epoch: each stop and run
			// varies by up to a third (a kernel's slices are not regular, and a
			// regular pattern could lock onto the probe's period).
			rng := rand.New(rand.NewPCG(1, 2))
			vary := func(d time.Duration) time.Duration { return d * time.Duration(80+rng.IntN(41)) / 100 }
			var stops [][2]time.Duration
			for at := time.Duration(0); at < time.Hour && len(stops) < 100000; {
				end := at + vary(c.stop)
				stops = append(stops, [2]time.Duration{at, end})
				at = end + vary(c.run)
			}
			clk := &fakeClock{}
			clk.advance(stops[0][1] / 3) // the first stop is under way
			// stoppedUntil is when the stop that holds at d ends (d itself when none does).
			stoppedUntil := func(d time.Duration) time.Duration {
				i, _ := slices.BinarySearchFunc(stops, d, func(s [2]time.Duration, d time.Duration) int { return cmp.Compare(s[1], d+1) })
				if i < len(stops) && stops[i][0] <= d {
					return stops[i][1]
				}
				return d
			}
			stopped := func(from, to time.Duration) (sum time.Duration) {
				for _, s := range stops {
					sum += max(0, min(to, s[1])-max(from, s[0]))
				}
				return sum
			}
			entered, steps := make(chan time.Duration), make(chan struct{})
			m := &Meter{now: clk.now, sleep: func(d time.Duration) {
				entered <- clk.now().Sub(epoch) // every wake-up before this one is counted
				<-steps
				due := clk.now().Sub(epoch) + d
				clk.advance(stoppedUntil(due) - clk.now().Sub(epoch))
			}}
			start := clk.now().Sub(epoch)
			m.Hold()
			for range 2000 {
				<-entered
				steps <- struct{}{}
			}
			end := <-entered
			got := m.Stalled()
			m.Release()
			steps <- struct{}{}
			for m.running.Load() { // idle wake-ups until the probe stops
				select {
				case <-entered:
					steps <- struct{}{}
				default:
					runtime.Gosched()
				}
			}
			truth := stopped(start, end)
			t.Logf("stopped %v of %v, counted %v (%.0f%%)", truth, end-start, got, 100*got.Seconds()/truth.Seconds())
			if got.Seconds() < c.atLeast*truth.Seconds() || got > truth+stallPeriod {
				t.Errorf("the process stood still %v of %v; the probe counted %v, want between %.0f%% of it and one period more",
					truth, end-start, got, 100*c.atLeast)
			}
		})
	}
}
