package egress

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// pairBanList renders PairBans as "e1/a.test@1s..10m1s": egress, host, and when the
// ban began and ends as offsets from t0.
func pairBanList(bans []PairBan) string {
	var parts []string
	for _, b := range bans {
		parts = append(parts, fmt.Sprintf("%s/%s@%v..%v", b.Egress, b.Host, b.At.Sub(t0), b.Until.Sub(t0)))
	}
	return strings.Join(parts, " ")
}

// TestRotationPairBans: the pair bans the rotation holds are listed with when each
// began (what a benchmark needs to tell how fast a site's ban was noticed), a
// refusal while a ban holds extends it without moving its start, expired bans leave
// the list, and the Egress pane's View carries the same list.
func TestRotationPairBans(t *testing.T) {
	retry := func(d time.Duration) Verdict { return Verdict{Class: SiteBan, RetryAfter: d, Reason: "429"} }
	r, _, clk := newTestRotation(t, 3, RotationConfig{PerNode: 3, PairBanFor: 10 * time.Minute})
	for _, tc := range []struct {
		name string
		at   time.Duration
		do   func(r *Rotation)
		want string
	}{
		{"nothing banned at start", 0, func(*Rotation) {}, ""},
		{"a site ban is listed from the moment it was seen", time.Second,
			func(r *Rotation) { r.Report("e1", "a.test", ban("403")) }, "e1/a.test@1s..10m1s"},
		{"a second refusal extends the ban but keeps its start", 5 * time.Second,
			func(r *Rotation) { r.Report("e1", "a.test", ban("403")) }, "e1/a.test@1s..10m5s"},
		{"a longer Retry-After sets the end", 6 * time.Second,
			func(r *Rotation) { r.Report("e2", "b.test", retry(time.Hour)) }, "e1/a.test@1s..10m5s e2/b.test@6s..1h0m6s"},
		{"site errors and successes ban nothing", 7 * time.Second, func(r *Rotation) {
			r.Report("e3", "c.test", Verdict{Class: SiteError, Reason: "404"})
			r.Report("e3", "a.test", okVerdict)
		}, "e1/a.test@1s..10m5s e2/b.test@6s..1h0m6s"},
		{"sorted by egress then host", 8 * time.Second,
			func(r *Rotation) { r.Report("e1", "0.test", ban("403")) }, "e1/0.test@8s..10m8s e1/a.test@1s..10m5s e2/b.test@6s..1h0m6s"},
		{"expired bans leave the list", 10*time.Minute + 9*time.Second, func(*Rotation) {}, "e2/b.test@6s..1h0m6s"},
		{"a refusal after expiry starts a new ban", 11 * time.Minute,
			func(r *Rotation) { r.Report("e1", "a.test", ban("403")) }, "e1/a.test@11m0s..21m0s e2/b.test@6s..1h0m6s"},
		{"enabling a host forgets its pair bans", 12 * time.Minute,
			func(r *Rotation) { r.Enable("b.test") }, "e1/a.test@11m0s..21m0s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk.set(tc.at)
			tc.do(r)
			if got := pairBanList(r.PairBans()); got != tc.want {
				t.Errorf("PairBans = %q, want %q", got, tc.want)
			}
			if got := pairBanList(r.View().PairBans); got != tc.want {
				t.Errorf("View().PairBans = %q, want %q", got, tc.want)
			}
		})
	}
}
