package front

import (
	"slices"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// A host's round budget holds its pages back until the next round; a total budget
// parks them; raising a host's budget gives back the URLs it parked, and only its.
func TestBudgetsHoldParkAndGiveBack(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := NewBudgets(config.BudgetOptions{HostRound: 2, SiteTotal: 3}, time.Hour)
	task := func(u, host, site string) frontier.Task { return frontier.Task{URL: u, Host: host, Site: site} }
	a1, a2, a3 := task("http://a.test/1", "a.test", "s"), task("http://a.test/2", "a.test", "s"), task("http://a.test/3", "a.test", "s")
	for _, tk := range []frontier.Task{a1, a2} {
		if kind, _ := b.Admit(tk, now); kind != "" {
			t.Fatalf("%s held back (%s) within its host's round budget", tk.URL, kind)
		}
	}
	kind, until := b.Admit(a3, now)
	if kind != SkipBudgetHost || !until.Equal(now.Add(time.Hour)) {
		t.Fatalf("third page of the round: %q until %v, want %q until the next round", kind, until, SkipBudgetHost)
	}
	b.Park(a3)
	if n, budget := b.HostUsed("a.test"); n != 2 || budget != 2 {
		t.Fatalf("host used %d of %d, want 2 of 2", n, budget)
	}
	// The next round: the host may fetch again, and the site's total (3) holds the fourth.
	later := now.Add(time.Hour)
	if kind, _ := b.Admit(a3, later); kind != "" {
		t.Fatalf("a new round held %s back (%s)", a3.URL, kind)
	}
	if kind, until := b.Admit(task("http://b.test/1", "b.test", "s"), later); kind != SkipBudgetSite || until.Sub(later) != ParkFor {
		t.Fatalf("over the site's total: %q parked %v, want %q parked %v", kind, until.Sub(later), SkipBudgetSite, ParkFor)
	}
	b.Park(task("http://b.test/1", "b.test", "s"))
	if got := b.Unpark(BudgetKey{Host: true, Name: "b.test"}); !slices.Equal(got, []string{"http://b.test/1"}) {
		t.Fatalf("raising b.test's budget gave back %q, want its one parked URL", got)
	}
	if got := b.Unpark(BudgetKey{Name: "s"}); !slices.Equal(got, []string{"http://a.test/3"}) {
		t.Fatalf("raising site s's budget gave back %q, want a.test's parked URL", got)
	}
	if b.Held("s") != 2 {
		t.Fatalf("held on s: %d, want 2", b.Held("s"))
	}
}
