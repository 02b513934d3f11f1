package pending

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// model is the queue as a plain list a tier: what Queue must answer, oldest first,
// the operator's tier before the articles' before the rest.
type model struct{ tiers [3][]frontier.Task }

func (m *model) take(keep func(frontier.Task) bool) []frontier.Task {
	var out []frontier.Task
	for k := range m.tiers {
		var rest []frontier.Task
		for _, t := range m.tiers[k] {
			if keep(t) {
				out = append(out, t)
			} else {
				rest = append(rest, t)
			}
		}
		m.tiers[k] = rest
	}
	return out
}

// TestQueueMatchesModel drives the queue and a plain list through the same random
// pushes, pops and takes, many past a compaction (1,024 taken from a tier), and
// compares every answer: what a lane opened for a task pulls in, and in which order.
func TestQueueMatchesModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q Queue
	q.Init()
	var m model
	seq := int64(0)
	for step := range 50_000 {
		switch r := rng.IntN(100); {
		case r < 50:
			seq++
			tk := frontier.Task{Seq: seq, URL: fmt.Sprint("u", seq), Host: fmt.Sprint("h", rng.IntN(40))}
			if rng.IntN(4) > 0 {
				tk.ParentHash = uint64(1 + rng.IntN(60))
			}
			switch k := rng.IntN(10); {
			case k == 0:
				q.PushFirst(tk)
				m.tiers[0] = append(m.tiers[0], tk)
			case k < 3:
				q.PushAhead(tk)
				m.tiers[1] = append(m.tiers[1], tk)
			default:
				q.Push(tk)
				m.tiers[2] = append(m.tiers[2], tk)
			}
		case r < 75:
			got, ok := q.Pop()
			var want frontier.Task
			wantOK := false
			for k := range m.tiers {
				if len(m.tiers[k]) > 0 {
					want, wantOK = m.tiers[k][0], true
					m.tiers[k] = m.tiers[k][1:]
					break
				}
			}
			if ok != wantOK || got.Seq != want.Seq {
				t.Fatalf("step %d: Pop = %d %v, want %d %v", step, got.Seq, ok, want.Seq, wantOK)
			}
		case r < 95:
			host, parent := fmt.Sprint("h", rng.IntN(40)), uint64(rng.IntN(61))
			got := q.TakeAdjacent(host, parent)
			want := m.take(func(t frontier.Task) bool { return t.Host == host || parent != 0 && t.ParentHash == parent })
			if !sameSeqs(got, want) {
				t.Fatalf("step %d: TakeAdjacent(%s, %d) = %v, want %v", step, host, parent, seqs(got), seqs(want))
			}
		case r < 98:
			host := fmt.Sprint("h", rng.IntN(40))
			got := q.TakeHost(host)
			want := m.take(func(t frontier.Task) bool { return t.Host == host })
			if !sameSeqs(got, want) {
				t.Fatalf("step %d: TakeHost(%s) = %v, want %v", step, host, seqs(got), seqs(want))
			}
		default:
			got := q.Take(func(t frontier.Task) bool { return t.Seq%7 == 0 })
			want := m.take(func(t frontier.Task) bool { return t.Seq%7 == 0 })
			if !sameSeqs(got, want) {
				t.Fatalf("step %d: Take = %v, want %v", step, seqs(got), seqs(want))
			}
		}
		if n := len(m.tiers[0]) + len(m.tiers[1]) + len(m.tiers[2]); q.Len() != n {
			t.Fatalf("step %d: Len = %d, want %d", step, q.Len(), n)
		}
	}
}

func seqs(ts []frontier.Task) []int64 {
	out := make([]int64, len(ts))
	for i, t := range ts {
		out[i] = t.Seq
	}
	return out
}

func sameSeqs(a, b []frontier.Task) bool { return slices.Equal(seqs(a), seqs(b)) }
