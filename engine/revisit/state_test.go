package revisit

import (
	"testing"
	"time"
)

// The seed's state updates (M2, seed 001 steps 2.4-2.7), one fetch per row, with the
// exact t, x, last and next each must leave.
func TestSeedStateUpdates(t *testing.T) {
	t0 := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	const (
		h = time.Hour
		m = time.Minute
	)
	const (
		a uint64 = 0x0000_0000_0000_0000
		b uint64 = 0x0000_0000_0000_003F // 6 bits from a: a change
		c uint64 = 0x0000_0000_0000_001F // 1 bit from b: within the threshold
		d uint64 = 0xFFFF_0000_0000_001F // 16 bits from c
	)
	steps := []struct {
		name    string
		at      time.Duration
		out     Outcome
		verdict Verdict
		t       time.Duration
		x       int
		last    time.Duration
		next    time.Duration
		hash    uint64
		dist    int
	}{
		// first fetch: t=0, x=1, last=now, next=now+initial (2h), hash=h
		{"first fetch", 0, Outcome{Hash: a, OK: true}, VerdictFirst, 0, 1, 0, 2 * h, a, -1},
		// t = 0+2h; 6 bits > 5: x=2; next = 2h + 2h/2
		{"changed", 2 * h, Outcome{Hash: b, OK: true}, VerdictChanged, 2 * h, 2, 2 * h, 3 * h, b, 6},
		// t = 2h+1h; 1 bit: x stays 2; next = 3h + 3h/2
		{"unchanged", 3 * h, Outcome{Hash: c, OK: true}, VerdictUnchanged, 3 * h, 2, 3 * h, 4*h + 30*m, c, 1},
		// 304: unchanged, hash kept; t = 3h+1h30; next = 4h30 + 4h30/2
		{"304 not modified", 4*h + 30*m, Outcome{NotModified: true}, VerdictUnchanged, 4*h + 30*m, 2, 4*h + 30*m, 6*h + 45*m, c, 1},
		// no text: unknown, t/x/last/hash kept; next = now + t/x
		{"empty body", 5 * h, Outcome{OK: false}, VerdictUnknown, 4*h + 30*m, 2, 4*h + 30*m, 7*h + 15*m, c, 1},
		// t = 4h30 + (6h-4h30); 16 bits: x=3; next = 6h + 6h/3
		{"changed after unknown", 6 * h, Outcome{Hash: d, OK: true}, VerdictChanged, 6 * h, 3, 6 * h, 8 * h, d, 16},
		// exactly the threshold (5 bits) is not a change: t=8h, next = 8h + 8h/3
		{"at threshold", 8 * h, Outcome{Hash: d ^ 0x1F00, OK: true}, VerdictUnchanged, 8 * h, 3, 8 * h, 8*h + 160*m, d ^ 0x1F00, 5},
	}
	tr, err := NewTracker(Config{Initial: 2 * h, Threshold: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &Page{URL: "https://news.example.com/a", Class: ClassGov}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			v := tr.Observe(p, at(s.at), s.out)
			if v != s.verdict {
				t.Errorf("verdict %v, want %v", v, s.verdict)
			}
			if p.T != s.t || p.X != s.x || !p.Last.Equal(at(s.last)) || !p.Next.Equal(at(s.next)) || p.Hash != s.hash || p.Distance != s.dist {
				t.Errorf("state t=%v x=%d last=+%v next=+%v hash=%x dist=%d\nwant  t=%v x=%d last=+%v next=+%v hash=%x dist=%d",
					p.T, p.X, p.Last.Sub(t0), p.Next.Sub(t0), p.Hash, p.Distance,
					s.t, s.x, s.last, s.next, s.hash, s.dist)
			}
		})
	}
}

// A page whose first fetches have no text gets a baseline from its first usable
// fingerprint, and is never counted as changed or unchanged before that.
func TestFirstUsableFingerprintIsABaseline(t *testing.T) {
	t0 := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	tr, _ := NewTracker(Config{Initial: time.Hour}, nil)
	p := &Page{URL: "https://x.example.com/"}
	steps := []struct {
		at      time.Duration
		out     Outcome
		verdict Verdict
		next    time.Duration
	}{
		{0, Outcome{OK: false}, VerdictFirst, time.Hour},
		{time.Hour, Outcome{NotModified: true}, VerdictUnknown, 2 * time.Hour}, // 304 with nothing to keep
		{2 * time.Hour, Outcome{Hash: 7, OK: true}, VerdictUnknown, 3 * time.Hour},
		{4 * time.Hour, Outcome{Hash: 7, OK: true}, VerdictUnchanged, 6 * time.Hour}, // t=2h, x=1: next = 4h + 2h
	}
	for i, s := range steps {
		if v := tr.Observe(p, t0.Add(s.at), s.out); v != s.verdict {
			t.Fatalf("step %d: verdict %v, want %v", i, v, s.verdict)
		}
		if !p.Next.Equal(t0.Add(s.next)) {
			t.Fatalf("step %d: next +%v, want +%v", i, p.Next.Sub(t0), s.next)
		}
	}
	if p.T != 2*time.Hour || p.X != 1 {
		t.Errorf("t=%v x=%d, want t=2h (only the compared interval) x=1", p.T, p.X)
	}
}

// Two fetches in one instant (t = 0) must not make a page due again at once.
func TestMinIntervalGuardsZeroT(t *testing.T) {
	t0 := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	tr, _ := NewTracker(Config{Initial: time.Hour}, nil)
	p := &Page{URL: "https://x.example.com/"}
	tr.Observe(p, t0, Outcome{Hash: 1, OK: true})
	tr.Observe(p, t0.Add(time.Second), Outcome{Hash: ^uint64(0), OK: true}) // t=1s, x=2
	if got := p.Next.Sub(t0.Add(time.Second)); got != DefaultMinInterval {
		t.Errorf("interval %v, want the %v floor", got, DefaultMinInterval)
	}
}

func TestTrackerRejectsBadConfig(t *testing.T) {
	if _, err := NewTracker(Config{Threshold: 64}, nil); err == nil {
		t.Error("threshold 64 accepted; a 64-bit SimHash can never exceed it")
	}
	if _, err := NewPolicy("lru", EstimatorOptions{}); err == nil {
		t.Error("unknown policy name accepted")
	}
	if _, err := NewPolicy(PolicyEstimator, EstimatorOptions{Budget: -1}); err == nil {
		t.Error("estimator with a negative budget accepted")
	}
	if _, err := NewEstimatorPolicy(EstimatorOptions{}); err == nil {
		t.Error("NewEstimatorPolicy without a budget accepted")
	}
	if p, err := NewPolicy(PolicySeed, EstimatorOptions{}); err != nil || p.Name() != PolicySeed {
		t.Errorf("NewPolicy(seed) = %v, %v", p, err)
	}
	for _, name := range []string{"", PolicyEstimator} {
		if p, err := NewPolicy(name, EstimatorOptions{}); err != nil || p.Name() != DefaultPolicy {
			t.Errorf("NewPolicy(%q) = %v, %v; want the default %s policy", name, p, err, DefaultPolicy)
		}
	}
}
