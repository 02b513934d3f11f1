package revisit

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// Age is the time average of the expected age over one refresh interval; the
// marginals are the derivatives of freshness and age by frequency. Both are checked
// against direct numerics, across the range where the closed forms cancel.
func TestAgeAndMarginalsAgreeWithNumerics(t *testing.T) {
	numericAge := func(rate, freq float64) float64 {
		// E[age at t after a refresh] = t − (1 − e^{−λt})/λ, averaged over [0, 1/f].
		I, n := 1/freq, 20000
		s := 0.0
		for i := range n {
			x := (float64(i) + 0.5) / float64(n) * I
			s += x + math.Expm1(-rate*x)/rate
		}
		return s / float64(n)
	}
	fresh, _ := NewObjective(ObjectiveFreshness, 1)
	age, _ := NewObjective(ObjectiveAge, 1)
	for _, c := range []struct{ rate, freq float64 }{
		{1e-4, 1}, {0.01, 1}, {0.3, 1}, {1, 1}, {3, 0.5}, {48, 0.1}, {100, 0.01},
	} {
		if got, want := Age(c.rate, c.freq), numericAge(c.rate, c.freq); math.Abs(got-want) > 1e-4*want+1e-12 {
			t.Errorf("Age(%v, %v) = %.8g, want %.8g", c.rate, c.freq, got, want)
		}
		h := 1e-5 * c.freq
		dF := (Freshness(c.rate, c.freq+h) - Freshness(c.rate, c.freq-h)) / (2 * h)
		if got := fresh.Marginal(c.rate, c.freq); math.Abs(got-dF) > 1e-4*math.Abs(dF)+1e-9 {
			t.Errorf("freshness marginal at (%v, %v) = %.8g, want dF/df = %.8g", c.rate, c.freq, got, dF)
		}
		dA := -(Age(c.rate, c.freq+h) - Age(c.rate, c.freq-h)) / (2 * h)
		if got := age.Marginal(c.rate, c.freq); math.Abs(got-dA) > 1e-4*math.Abs(dA)+1e-9 {
			t.Errorf("age marginal at (%v, %v) = %.8g, want −dA/df = %.8g", c.rate, c.freq, got, dA)
		}
	}
	// Captured changes: every fetch of a hopelessly fast page catches one; a fetch of a
	// slow page catches what changed since the last.
	if got := Captured(1000, 0.1); math.Abs(got-0.1) > 1e-9 {
		t.Errorf("Captured(1000, 0.1) = %v, want 0.1 (one change per fetch)", got)
	}
	if got, want := Captured(0.5, 1)/0.5, Freshness(0.5, 1); math.Abs(got-want) > 1e-12 {
		t.Errorf("captured share %v, want the freshness %v", got, want)
	}
	for _, c := range []struct{ rate, freq float64 }{{0, 1}, {1, 0}, {0, 0}, {math.NaN(), 1}, {1, math.NaN()}} {
		for _, v := range []float64{Captured(c.rate, c.freq), Age(c.rate, c.freq), fresh.Marginal(c.rate, c.freq)} {
			if math.IsNaN(v) {
				t.Errorf("(%v, %v): NaN", c.rate, c.freq)
			}
		}
	}
}

// Objective names and budgets are checked with errors that name what is wrong.
func TestNewObjectiveValidates(t *testing.T) {
	cases := []struct {
		name   string
		budget float64
		want   string // "" = accepted
	}{
		{"", 0.1, ""},
		{"freshness", 0.1, ""},
		{"age", 3, ""},
		{"balanced", 0.3, ""},
		{"fresh", 0.1, `unknown objective "fresh" (want balanced, freshness, age)`},
		{"Age", 0.1, `unknown objective "Age"`},
		{"age", 0, "positive budget"},
		{"age", -1, "positive budget"},
		{"balanced", math.NaN(), "positive budget"},
		{"balanced", math.Inf(1), "positive budget"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%q/%v", c.name, c.budget), func(t *testing.T) {
			o, err := NewObjective(c.name, c.budget)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("rejected: %v", err)
			case c.want == "":
				if want := map[string]string{"": DefaultObjective}[c.name]; want != "" && o.Name() != want {
					t.Errorf("empty name is %q, want the default %q", o.Name(), want)
				}
			case err == nil || !strings.Contains(err.Error(), c.want):
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
			if _, perr := NewEstimatorPolicy(EstimatorOptions{Budget: c.budget, Objective: c.name}); (perr == nil) != (c.want == "") {
				t.Errorf("NewEstimatorPolicy: %v, want error %v", perr, c.want != "")
			}
		})
	}
}

// Degenerate histories (bad input): a page that never changes, one that
// changes on every fetch, one answered 304 every time, one whose fetches fail. Under
// every objective (and the seed rule): no division by zero, nothing NaN or infinite
// kept in the page (the store would keep it), and every interval within
// [min_interval, the class window].
func TestDegenerateHistoriesStayBounded(t *testing.T) {
	const minInterval = time.Minute
	window := 14 * 24 * time.Hour
	outcomes := map[string]func(i int) Outcome{
		"never changes":       func(int) Outcome { return Outcome{Hash: 42, OK: true} },
		"changes every fetch": func(i int) Outcome { return Outcome{Hash: uint64(i%2) * ^uint64(0), OK: true} },
		"304 every fetch": func(i int) Outcome {
			if i == 0 {
				return Outcome{Hash: 42, OK: true}
			}
			return Outcome{NotModified: true}
		},
		"fetch fails": func(i int) Outcome {
			if i == 0 {
				return Outcome{Hash: 42, OK: true}
			}
			return Outcome{}
		},
		"fails then changes": func(i int) Outcome {
			if i%3 == 1 {
				return Outcome{}
			}
			return Outcome{Hash: uint64(i), OK: true}
		},
	}
	policies := map[string]func() Policy{"seed": func() Policy { return SeedPolicy{} }}
	for _, obj := range Objectives {
		policies[obj] = func() Policy {
			p, err := NewEstimatorPolicy(EstimatorOptions{Budget: 0.1, Objective: obj})
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
	}
	for pname, mk := range policies {
		for oname, outcome := range outcomes {
			t.Run(pname+"/"+oname, func(t *testing.T) {
				tr, err := NewTracker(Config{MinInterval: minInterval, Windows: Windows{ClassCom: window}}, mk())
				if err != nil {
					t.Fatal(err)
				}
				p := Page{URL: "https://example.com/a", Class: ClassCom}
				now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
				first := now
				for i := range 60 {
					tr.Observe(&p, now, outcome(i))
					for name, v := range map[string]float64{"rate": p.Rate, "freq": p.Freq, "price": p.Price, "fresh": p.Fresh, "age": p.Age} {
						if math.IsNaN(v) || math.IsInf(v, 0) {
							t.Fatalf("fetch %d: %s = %v", i, name, v)
						}
					}
					if p.Next.Equal(Never) {
						return // its next fell past its window: retired, as M2 says
					}
					if iv := p.Next.Sub(now); iv < minInterval || iv > window {
						t.Fatalf("fetch %d: interval %v outside [%v, %v]", i, iv, minInterval, window)
					}
					if now.Sub(first) >= window {
						t.Fatalf("fetch %d: still revisited %v after the first fetch, window %v", i, now.Sub(first), window)
					}
					now = p.Next
				}
			})
		}
	}
}
