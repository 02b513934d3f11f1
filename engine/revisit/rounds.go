package revisit

import (
	"math/rand"
	"net/url"
	"strings"
	"time"
)

// Item is one URL in a round's list (M3, seed 003 step d): where it came from and
// what it is for.
type Item struct {
	URL     string
	Host    string // lower-case host; Interleave groups by it (filled from URL if empty)
	Site    string // news site or social site it belongs to (cost table key)
	Keyword string // social search keyword; empty for news pages
	Class   string // page class; FilterKnown fills it from the Classifier if empty
	New     bool   // not in the URL index yet (FilterKnown sets it)
}

// Interleave returns items mixed by host (seed 003 step d-3): group the URLs by host,
// then repeatedly pick a random host group and a random not-yet-picked URL from it,
// until every URL is picked. Each host is equally likely at every step, whatever its
// size, so a host with a few URLs is not starved behind one with thousands, and no
// host's pages come in a burst. Every item appears exactly once; items is not
// modified.
func Interleave(items []Item, rng *rand.Rand) []Item {
	var (
		groups [][]Item
		index  = make(map[string]int)
	)
	for _, it := range items {
		h := it.Host
		if h == "" {
			h = hostOf(it.URL)
		}
		gi, ok := index[h]
		if !ok {
			gi = len(groups)
			index[h] = gi
			groups = append(groups, nil)
		}
		groups[gi] = append(groups[gi], it)
	}
	out := make([]Item, 0, len(items))
	for len(groups) > 0 {
		gi := rng.Intn(len(groups))
		g := groups[gi]
		ui := rng.Intn(len(g))
		out = append(out, g[ui])
		g[ui] = g[len(g)-1]
		g = g[:len(g)-1]
		if len(g) == 0 {
			groups[gi] = groups[len(groups)-1]
			groups = groups[:len(groups)-1]
		} else {
			groups[gi] = g
		}
	}
	return out
}

// hostOf returns the lower-case host of rawURL, or rawURL itself if it does not parse.
func hostOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return rawURL
	}
	return strings.ToLower(u.Hostname())
}

// URLIndex is the URL index of seed 003 (table 6): every URL crawled so far with its
// first access time.
type URLIndex interface {
	// FirstAccess returns when url was first fetched, and false if never.
	FirstAccess(url string) (time.Time, bool)
}

// FilterKnown drops from a round's list the URLs already in the index whose class
// window has closed (seed 003 step d, stages 1-2); URLs not in the index are kept and
// marked New, known URLs still inside their window are kept for revisiting. Items
// without a class get one from classes.
func FilterKnown(items []Item, index URLIndex, classes Classifier, windows Windows, now time.Time) []Item {
	out := make([]Item, 0, len(items))
	for _, it := range items {
		if it.Class == "" {
			u, err := url.Parse(it.URL)
			if err != nil {
				u = nil
			}
			it.Class = classes.Class(u)
		}
		first, known := index.FirstAccess(it.URL)
		if !known {
			it.New = true
			out = append(out, it)
			continue
		}
		if windows.Active(it.Class, first, now) {
			out = append(out, it)
		}
	}
	return out
}
