package engine

import (
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/egress"
)

// TestRotationDefaultsAreTheRotations: the documented rotation defaults are the
// egress rotation's own, so a config that leaves them out and one that spells the
// defaults out crawl alike.
func TestRotationDefaultsAreTheRotations(t *testing.T) {
	d := egress.DefaultRotationConfig()
	got := DefaultOptions().Rotation
	want := RotationOptions{PerNode: d.PerNode, DisableFor: d.DisableFor, PairBanFor: d.PairBanFor, FaultCooldown: d.FaultCooldown}
	if got != want {
		t.Fatalf("DefaultOptions().Rotation = %+v, want the rotation's defaults %+v", got, want)
	}
	if got.PerNode != 2 || got.DisableFor.Hours() != 2 || got.PairBanFor.Minutes() != 30 || got.FaultCooldown.Seconds() != 30 {
		t.Fatalf("rotation defaults %+v differ from the README's (2, 2h, 30m, 30s)", got)
	}
}
