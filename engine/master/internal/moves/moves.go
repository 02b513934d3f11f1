// Package moves counts the sites and keyword shards a deal over workers moves (a
// worker's join, a resume), by giver and receiver, and words them for the line the
// operator reads in the log: which moved to the worker that joined or resumed, and
// which moved between the others (a paused worker's sites to the active ones).
package moves

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine/plural"
)

// Pair is a move's giver and receiver; From is "" for a unit that had no owner
// (found since the last deal, or its worker died).
type Pair struct{ From, To string }

// Count is how many units move, by giver and receiver.
type Count map[Pair]int

// Add counts one unit moving from from to to.
func (c Count) Add(from, to string) { c[Pair{from, to}]++ }

// Total is how many units move.
func (c Count) Total() int {
	n := 0
	for _, k := range c {
		n += k
	}
	return n
}

// shown is how many moves between other workers a line names; the rest are summed.
const shown = 4

// Said words the moves for worker name's line: those to it first, then the others
// by receiver, "3 sites or keyword shards move to it, 2 from w1 to w2, 1 to w4"
// ("from it" for its own; no giver for a unit that had no owner).
func (c Count) Said(name string) string {
	type clause struct {
		n     int
		where string
	}
	var clauses []clause
	to := 0
	var others []Pair
	for p, k := range c {
		switch {
		case k == 0:
		case p.To == name:
			to += k
		default:
			others = append(others, p)
		}
	}
	if to > 0 {
		clauses = append(clauses, clause{to, "to it"})
	}
	slices.SortFunc(others, func(a, b Pair) int { return cmp.Or(cmp.Compare(a.To, b.To), cmp.Compare(a.From, b.From)) })
	rest, restTo := 0, map[string]bool{}
	for i, p := range others {
		if i >= shown {
			rest += c[p]
			restTo[p.To] = true
			continue
		}
		switch p.From {
		case "":
			clauses = append(clauses, clause{c[p], "to " + p.To})
		case name:
			clauses = append(clauses, clause{c[p], "from it to " + p.To})
		default:
			clauses = append(clauses, clause{c[p], "from " + p.From + " to " + p.To})
		}
	}
	if len(clauses) == 0 {
		return "no site or keyword shard moves"
	}
	words := make([]string, 0, len(clauses)+1)
	for i, cl := range clauses {
		if i == 0 {
			words = append(words, fmt.Sprintf("%s %s %s", plural.Count(cl.n, "site or keyword shard", "sites or keyword shards"),
				plural.Noun(cl.n, "moves", "move"), cl.where))
			continue
		}
		words = append(words, fmt.Sprintf("%d %s", cl.n, cl.where))
	}
	if rest > 0 {
		words = append(words, fmt.Sprintf("%d more to %s", rest, plural.Count(len(restTo), "other worker")))
	}
	return strings.Join(words, ", ")
}
