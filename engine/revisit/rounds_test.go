package revisit

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"
	"time"
)

// roundItems builds a round list: sizes[i] URLs on host i.
func roundItems(sizes ...int) []Item {
	var items []Item
	for h, n := range sizes {
		for i := 0; i < n; i++ {
			items = append(items, Item{URL: fmt.Sprintf("https://h%d.example.com/p%d", h, i)})
		}
	}
	return items
}

func TestInterleaveKeepsEveryItemOnce(t *testing.T) {
	cases := []struct {
		name  string
		sizes []int
	}{
		{"empty", nil},
		{"one host", []int{7}},
		{"even", []int{10, 10, 10}},
		{"skewed", []int{500, 1, 3, 40}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			items := roundItems(c.sizes...)
			orig := slices.Clone(items)
			got := Interleave(items, rand.New(rand.NewSource(3)))
			if !slices.Equal(items, orig) {
				t.Fatal("Interleave modified its input")
			}
			if len(got) != len(items) {
				t.Fatalf("%d items out, %d in", len(got), len(items))
			}
			seen := map[string]int{}
			for _, it := range got {
				seen[it.URL]++
			}
			for _, it := range items {
				if seen[it.URL] != 1 {
					t.Fatalf("%s appears %d times", it.URL, seen[it.URL])
				}
			}
		})
	}
}

// Seed 003 d-3: each step picks a host group uniformly, so a small host is not
// starved behind a big one: its URL comes out near the front, not at a uniformly
// random place in the list as a plain shuffle would put it.
func TestInterleaveDoesNotStarveSmallHosts(t *testing.T) {
	const trials = 2000
	rng := rand.New(rand.NewSource(11))
	items := roundItems(400, 1) // host 1 has a single URL among 401
	sum := 0
	for range trials {
		for pos, it := range Interleave(items, rng) {
			if it.URL == "https://h1.example.com/p0" {
				sum += pos
				break
			}
		}
	}
	// With two groups the small host's URL is picked at each step with probability
	// 1/2: mean position 1 (a plain shuffle: 200). The mean of 2000 geometric draws
	// exceeds 2 with probability far below 1e-6.
	if mean := float64(sum) / trials; mean > 2 {
		t.Errorf("small host's URL at mean position %.1f, want about 1", mean)
	}
}

// Random order: the first host picked is uniform over hosts, and different seeds give
// different lists.
func TestInterleaveIsRandom(t *testing.T) {
	items := roundItems(50, 5, 5, 5)
	first := map[string]int{}
	rng := rand.New(rand.NewSource(5))
	const trials = 4000
	for range trials {
		first[hostOf(Interleave(items, rng)[0].URL)]++
	}
	// Each of 4 hosts should lead a quarter of the time (1000 ± 27 sd); ±250 is over
	// 9 standard deviations.
	for h, n := range first {
		if n < trials/4-250 || n > trials/4+250 {
			t.Errorf("host %s leads %d of %d lists, want about %d", h, n, trials, trials/4)
		}
	}
	a := Interleave(items, rand.New(rand.NewSource(1)))
	b := Interleave(items, rand.New(rand.NewSource(2)))
	if slices.Equal(a, b) {
		t.Error("two seeds gave the same order")
	}
	// Within one host the URLs are in random order too, not in input order.
	var h0 []string
	for _, it := range a {
		if hostOf(it.URL) == "h0.example.com" {
			h0 = append(h0, it.URL)
		}
	}
	if slices.IsSorted(h0) && len(h0) > 3 {
		t.Error("a host's URLs kept their input order")
	}
}

type mapIndex map[string]time.Time

func (m mapIndex) FirstAccess(u string) (time.Time, bool) {
	t, ok := m[u]
	return t, ok
}

// Seed 003 d, stages 1-2: new URLs are kept (and marked new); known ones only while
// inside their class window.
func TestFilterKnown(t *testing.T) {
	day := 24 * time.Hour
	now := time.Date(2024, 3, 10, 0, 0, 0, 0, time.UTC)
	index := mapIndex{
		"https://weibo.com/s/old":     now.Add(-3 * day),
		"https://weibo.com/s/recent":  now.Add(-1 * day),
		"https://news.example.com/a":  now.Add(-13 * day),
		"https://news.example.com/b":  now.Add(-15 * day),
		"https://www.gov.cn/notice/1": now.Add(-59 * day),
	}
	items := []Item{
		{URL: "https://weibo.com/s/old"},
		{URL: "https://weibo.com/s/recent"},
		{URL: "https://weibo.com/s/new"},
		{URL: "https://news.example.com/a"},
		{URL: "https://news.example.com/b"},
		{URL: "https://www.gov.cn/notice/1"},
		{URL: "https://news.example.com/b2", Class: ClassGov}, // declared on the item
		{URL: "::not a url"},
	}
	classes := Classifier{Social: map[string]bool{"weibo.com": true}}
	got := FilterKnown(items, index, classes, DefaultWindows(), now)
	want := map[string]bool{ // URL → New
		"https://weibo.com/s/recent":  false,
		"https://weibo.com/s/new":     true,
		"https://news.example.com/a":  false,
		"https://www.gov.cn/notice/1": false,
		"https://news.example.com/b2": true,
		"::not a url":                 true,
	}
	if len(got) != len(want) {
		t.Errorf("kept %d items, want %d: %+v", len(got), len(want), got)
	}
	for _, it := range got {
		isNew, ok := want[it.URL]
		if !ok {
			t.Errorf("kept %s, past its window", it.URL)
		} else if it.New != isNew {
			t.Errorf("%s: New = %v, want %v", it.URL, it.New, isNew)
		}
		if it.Class == "" {
			t.Errorf("%s: no class filled in", it.URL)
		}
	}
}

func TestCostTable(t *testing.T) {
	ct := NewCostTable()
	end1 := time.Date(2024, 3, 1, 1, 0, 0, 0, time.UTC)
	ct.Add("news.example.com", "", 2*time.Second)
	ct.Add("news.example.com", "", 3*time.Second)
	ct.Add("weibo.com", "flood", time.Second)
	ct.Add("weibo.com", "drought", 4*time.Second)
	rows := ct.EndRound(end1)
	want := []CostRow{
		{CostKey{"news.example.com", ""}, 5 * time.Second, 2, end1},
		{CostKey{"weibo.com", "drought"}, 4 * time.Second, 1, end1},
		{CostKey{"weibo.com", "flood"}, time.Second, 1, end1},
	}
	if !slices.Equal(rows, want) {
		t.Fatalf("round 1 rows %+v\nwant %+v", rows, want)
	}
	// Round 2 touches one key: it replaces that row, the others keep round 1's.
	end2 := end1.Add(time.Hour)
	ct.Add("weibo.com", "flood", 7*time.Second)
	ct.EndRound(end2)
	want[2] = CostRow{CostKey{"weibo.com", "flood"}, 7 * time.Second, 1, end2}
	if rows := ct.Rows(); !slices.Equal(rows, want) {
		t.Errorf("table after round 2 %+v\nwant %+v", rows, want)
	}
}
