package sandbox

import (
	"math"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/cespare/xxhash/v2"
	"github.com/mfonda/simhash"
)

// Statistical tolerances are 5.5 standard deviations: a correct model fails one check
// with probability < 4e-8, so the handful of checks here stay under 1e-6 together.
const zTol = 5.5

func changingLeaves(w *Web) (leaves []PageInfo, changing []PageInfo) {
	for _, p := range w.Pages() {
		if p.Kind == KindArticle || p.Kind == KindPost {
			leaves = append(leaves, p)
			if p.ChangeRate > 0 {
				changing = append(changing, p)
			}
		}
	}
	return leaves, changing
}

func TestChangeRatesFollowTheConfiguredDistribution(t *testing.T) {
	cfg := DefaultConfig()
	w := NewWeb(cfg)
	leaves, changing := changingLeaves(w)
	n := float64(len(leaves))

	t.Run("never-changing share", func(t *testing.T) {
		p := cfg.Change.NeverShare
		got := n - float64(len(changing))
		if z := (got - n*p) / math.Sqrt(n*p*(1-p)); math.Abs(z) > zTol {
			t.Errorf("%v of %v leaves never change, want share %v (z=%.1f)", got, n, p, z)
		}
	})
	t.Run("log-uniform rates", func(t *testing.T) {
		mid := math.Sqrt(cfg.Change.MinRate * cfg.Change.MaxRate)
		below := 0.0
		for _, p := range changing {
			if p.ChangeRate < cfg.Change.MinRate || p.ChangeRate > cfg.Change.MaxRate {
				t.Fatalf("%s: rate %v outside [%v, %v]", p.URL, p.ChangeRate, cfg.Change.MinRate, cfg.Change.MaxRate)
			}
			if p.ChangeRate < mid {
				below++
			}
		}
		m := float64(len(changing))
		if z := (below - m/2) / math.Sqrt(m/4); math.Abs(z) > zTol {
			t.Errorf("%v of %v rates below the geometric midpoint %v, want half (z=%.1f)", below, m, mid, z)
		}
	})
}

func TestChangeCountsArePoisson(t *testing.T) {
	cfg := DefaultConfig()
	w := NewWeb(cfg)
	_, changing := changingLeaves(w)
	const days = 20.0
	from, to := cfg.Epoch, cfg.Epoch.Add(time.Duration(days*float64(webDay)))
	type bucket struct {
		name       string
		lo, hi     float64
		got, want  float64
		dispersion float64 // Σ (N-μ)²/μ
		dispVar    float64 // its variance under Poisson: Σ (2 + 1/μ)
		pages      int
	}
	buckets := []*bucket{{name: "slow (< 0.5/day)", lo: 0, hi: 0.5}, {name: "medium", lo: 0.5, hi: 5}, {name: "fast (≥ 5/day)", lo: 5, hi: math.Inf(1)}}
	for _, p := range changing {
		times := w.ChangeTimes(p.URL, from, to)
		mu := p.ChangeRate * days
		for i := 1; i < len(times); i++ {
			if !times[i].After(times[i-1]) {
				t.Fatalf("%s: change times not increasing", p.URL)
			}
		}
		if v := w.Version(p.URL, to); v != len(times) {
			t.Fatalf("%s: Version at the horizon = %d, ChangeTimes has %d", p.URL, v, len(times))
		}
		for _, b := range buckets {
			if p.ChangeRate >= b.lo && p.ChangeRate < b.hi {
				n := float64(len(times))
				b.got += n
				b.want += mu
				b.dispersion += (n - mu) * (n - mu) / mu
				b.dispVar += 2 + 1/mu
				b.pages++
			}
		}
	}
	for _, b := range buckets {
		t.Run(b.name, func(t *testing.T) {
			if b.pages < 50 {
				t.Fatalf("only %d pages in the bucket", b.pages)
			}
			// Sum of independent Poisson counts is Poisson(Σμ).
			if z := (b.got - b.want) / math.Sqrt(b.want); math.Abs(z) > zTol {
				t.Errorf("%v changes over %d pages in %v days, expected %.0f (z=%.1f)", b.got, b.pages, days, b.want, z)
			}
			// Index of dispersion: a clockwork (or clumped) process fails it.
			if z := (b.dispersion - float64(b.pages)) / math.Sqrt(b.dispVar); math.Abs(z) > zTol+1 {
				t.Errorf("dispersion %.0f over %d pages, expected ≈ %d for Poisson (z=%.1f)", b.dispersion, b.pages, b.pages, z)
			}
		})
	}
}

func TestChangeTimesDoNotDependOnThePort(t *testing.T) {
	a := NewWeb(DefaultConfig())
	cfg := DefaultConfig()
	cfg.HTTPAddr = "127.0.0.1:4321"
	b := NewWeb(cfg)
	_, changing := changingLeaves(a)
	for _, p := range changing[:20] {
		withPort := strings.Replace(p.URL, p.Host, p.Host+":4321", 1)
		ta := a.ChangeTimes(p.URL, a.Epoch(), a.Epoch().Add(30*webDay))
		tb := b.ChangeTimes(withPort, b.Epoch(), b.Epoch().Add(30*webDay))
		if len(ta) != len(tb) || (len(ta) > 0 && !ta[0].Equal(tb[0])) {
			t.Fatalf("%s: %d changes without port, %d with", p.URL, len(ta), len(tb))
		}
	}
}

// TestBoilerplateChurnsContentDoesNot renders one article many times: every response
// differs (clock, ad, counter), while the content, ETag and Last-Modified stay put until
// a real change, which replaces at least half of the paragraphs and moves the SimHash
// of the text past M2's default threshold (5 bits).
func TestBoilerplateChurnsContentDoesNot(t *testing.T) {
	cfg := DefaultConfig()
	cfg.SetFaultShare(0)
	w := NewWeb(cfg)
	_, changing := changingLeaves(w)
	for _, lang := range []string{"en", "zh", "ru"} {
		t.Run(lang, func(t *testing.T) {
			var p PageInfo
			for _, q := range changing {
				if w.hostOf(q.Host).site.Lang == lang && q.ChangeRate > p.ChangeRate {
					p = q
				}
			}
			checkChurnAndChanges(t, w, p)
		})
	}
}

func checkChurnAndChanges(t *testing.T, w *Web, p PageInfo) {
	times := w.ChangeTimes(p.URL, w.Epoch(), w.Epoch().Add(5*webDay))
	if len(times) < 30 {
		t.Fatalf("%s: only %d changes in 5 days at rate %v", p.URL, len(times), p.ChangeRate)
	}
	detected := 0
	for k := 1; k < len(times); k++ {
		before := times[k-1].Add((times[k].Sub(times[k-1])) / 2)
		stA, hA, bodyA := w.Render(p.URL, before, int64(2*k))
		stB, hB, bodyB := w.Render(p.URL, before.Add(time.Millisecond), int64(2*k+1))
		if stA != 200 || stB != 200 {
			t.Fatalf("status %d/%d", stA, stB)
		}
		if string(bodyA) == string(bodyB) {
			t.Fatalf("two requests got byte-identical pages: boilerplate does not churn")
		}
		if articleText(bodyA) != articleText(bodyB) || hA.Get("ETag") != hB.Get("ETag") || hA.Get("Last-Modified") != hB.Get("Last-Modified") {
			t.Fatalf("content or validators differ between requests without a change")
		}
		_, hC, bodyC := w.Render(p.URL, times[k], int64(2*k))
		if hC.Get("ETag") == hA.Get("ETag") {
			t.Fatalf("ETag unchanged across change %d", k)
		}
		oldParas := strings.Split(articleText(bodyA), "</p>")
		newParas := strings.Split(articleText(bodyC), "</p>")
		fresh := 0
		for _, np := range newParas {
			found := false
			for _, op := range oldParas {
				found = found || op == np
			}
			if !found {
				fresh++
			}
		}
		if fresh < articleSlots/2 {
			t.Fatalf("change %d: only %d new paragraphs", k, fresh)
		}
		if simhash.Compare(shingleSimhash(articleText(bodyA)), shingleSimhash(articleText(bodyC))) > 5 {
			detected++
		}
	}
	if frac := float64(detected) / float64(len(times)-1); frac < 0.95 {
		t.Errorf("SimHash (threshold 5) detects only %.0f%% of real changes", 100*frac)
	}
}

var wordRE = regexp.MustCompile(`[\p{L}\p{N}]+`)

type shingle uint64

func (f shingle) Sum() uint64 { return uint64(f) }
func (f shingle) Weight() int { return 1 }

type shingles []simhash.Feature

func (s shingles) GetFeatures() []simhash.Feature { return s }

// shingleSimhash is M2's fingerprint in its plainest form: SimHash over lower-cased
// word 2-shingles, and character bigrams for Han text (which has no spaces).
func shingleSimhash(text string) uint64 {
	words := wordRE.FindAllString(strings.ToLower(text), -1)
	var fs shingles
	for i, w := range words {
		if r := []rune(w); unicode.Is(unicode.Han, r[0]) {
			for j := 0; j+1 < len(r); j++ {
				fs = append(fs, shingle(xxhash.Sum64String(string(r[j:j+2]))))
			}
		}
		if i > 0 {
			fs = append(fs, shingle(xxhash.Sum64String(words[i-1]+" "+w)))
		}
	}
	return simhash.Simhash(fs)
}
