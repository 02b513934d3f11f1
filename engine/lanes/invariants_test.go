package lanes

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// checkBoard fails the test unless the board's bookkeeping matches its lanes' tasks:
// per egress, each host is held by at most one lane (M1: one lane per host per
// address), byHost and byParent point at live lanes that hold those tasks, and each
// lane's host and parent counts match the tasks it queues or holds.
func checkBoard(t *testing.T, b *Board, step int, op string) {
	t.Helper()
	for e := range b.egresses {
		holders := map[string][]*Lane{}
		for _, l := range b.lanes {
			if l.Egress != e {
				continue
			}
			cnt := map[string]int{}
			pc := map[uint64]int{}
			for _, tasks := range [][]frontier.Task{l.queue, l.holding} {
				for _, tk := range tasks {
					cnt[tk.Host]++
					if tk.ParentHash != 0 {
						pc[tk.ParentHash]++
					}
				}
			}
			// Compared as maps, not as their printed forms: this runs after each of
			// 200,000 steps, and printing sorts every map's keys.
			if !maps.Equal(cnt, l.hosts) {
				t.Fatalf("step %d (%s): lane %d hosts %v, tasks say %v", step, op, l.ID, l.hosts, cnt)
			}
			if !maps.Equal(pc, l.parents) {
				t.Fatalf("step %d (%s): lane %d parents %v, tasks say %v", step, op, l.ID, l.parents, pc)
			}
			for h := range l.hosts {
				holders[h] = append(holders[h], l)
			}
		}
		for h, ls := range holders {
			if len(ls) > 1 {
				t.Fatalf("step %d (%s): host %s held by %d lanes on egress %d", step, op, h, len(ls), e)
			}
			if b.byHost[e][h] != ls[0] {
				t.Fatalf("step %d (%s): byHost[%d][%s] not its holder", step, op, e, h)
			}
		}
		for h, l := range b.byHost[e] {
			if b.lanes[l.ID] != l || l.hosts[h] == 0 || l.Egress != e {
				t.Fatalf("step %d (%s): stale byHost[%d][%s] -> lane %d", step, op, e, h, l.ID)
			}
		}
		for p, l := range b.byParent[e] {
			if b.lanes[l.ID] != l || l.parents[p] == 0 || l.Egress != e {
				t.Fatalf("step %d (%s): stale byParent[%d][%d] -> lane %d", step, op, e, p, l.ID)
			}
		}
	}
}

// TestBoardInvariantsUnderRandomOperations drives boards of 1-6 lanes over three
// egresses through random adds (6 hosts, 5 parents; some the operator's, some
// articles just listed), Next calls (which split queues
// and take over backlogs), lane pauses, host drops, per-egress bans with eviction,
// rebalancing and lanes.max changes, and checks the bookkeeping after every step; a
// task is never handed out twice.
func TestBoardInvariantsUnderRandomOperations(t *testing.T) {
	for seed := uint64(0); seed < 100; seed++ {
		rng := rand.New(rand.NewPCG(seed, 9))
		banned := map[[2]int]bool{}
		b := NewBoard(1+rng.IntN(6), []string{"e0", "e1", "e2"})
		b.Allowed = func(e int, host string) bool { return !banned[[2]int{e, int(host[1] - '0')}] }
		added, out := 0, 0
		seen := map[string]bool{}
		inHand := map[int]bool{} // lanes with a task in hand
		for step := 0; step < 2000; step++ {
			var op string
			switch r := rng.IntN(100); {
			case r < 40:
				op = "add"
				h := rng.IntN(6)
				p := uint64(rng.IntN(5))
				u := fmt.Sprintf("http://h%d/%d", h, step)
				switch tk := task(u, fmt.Sprintf("h%d", h), p); rng.IntN(10) {
				case 0:
					b.AddFirst(tk)
				case 1:
					b.AddAhead(tk)
				default:
					b.Add(tk)
				}
				added++
			case r < 85:
				op = "next"
				var live []*Lane
				for _, l := range b.lanes {
					if !l.paused {
						live = append(live, l)
					}
				}
				if len(live) == 0 {
					continue
				}
				l := live[rng.IntN(len(live))]
				tk, ok, _ := b.Next(l)
				if ok {
					if seen[tk.URL] {
						t.Fatalf("seed %d step %d: %s handed out twice", seed, step, tk.URL)
					}
					seen[tk.URL] = true
					out++
					inHand[l.ID] = true
				}
			case r < 90:
				op = "pause"
				for _, l := range b.lanes {
					if rng.IntN(3) == 0 {
						b.SetPaused(l.ID, !l.paused)
					}
				}
			case r < 93:
				op = "drophost"
				out += len(b.DropHost(fmt.Sprintf("h%d", rng.IntN(6))))
			case r < 96:
				op = "ban+evict"
				e, h := rng.IntN(3), rng.IntN(6)
				banned[[2]int{e, h}] = !banned[[2]int{e, h}]
				for _, tk := range b.Evict(fmt.Sprintf("h%d", h), e) {
					b.Add(tk)
				}
			case r < 98:
				op = "setegress"
				for _, l := range b.lanes {
					_ = b.SetEgress(l.ID, rng.IntN(3))
					break
				}
			default:
				op = "setmax"
				b.SetMax(1 + rng.IntN(6))
			}
			checkBoard(t, b, step, fmt.Sprintf("seed %d %s", seed, op))
		}
		if added == 0 || out == 0 {
			t.Fatalf("seed %d: %d tasks added, %d handed out or dropped: the run exercised nothing", seed, added, out)
		}
	}
}
