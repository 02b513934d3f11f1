package config

import (
	"time"

	"github.com/crawlconsole/crawlconsole/engine/egress"
)

// RotationOptions configures egress rotation (M3, seed 003).
type RotationOptions struct {
	// PerNode is how many egresses the node starts with; it claims more from the
	// account table when all of them were refused (seed: 2). 0 = all of them.
	PerNode int `yaml:"per_node"`
	// DisableFor is how long a host stays on the host_disable_list once every egress
	// was refused (seed: 2h). Its URLs are deferred, never dropped.
	DisableFor time.Duration `yaml:"disable_for"`
	// PairBanFor keeps one (egress, host) pair apart after a site ban when the site
	// sent no longer Retry-After (default 30m).
	PairBanFor time.Duration `yaml:"pair_ban_for"`
	// FaultCooldown takes an egress out for every host after a proxy fault; it
	// doubles with each fault in a row (default 30s).
	FaultCooldown time.Duration `yaml:"fault_cooldown"`
}

// DefaultRotation is egress.DefaultRotationConfig's, the one place the rotation
// defaults live.
func DefaultRotation() RotationOptions {
	d := egress.DefaultRotationConfig()
	return RotationOptions{PerNode: d.PerNode, DisableFor: d.DisableFor, PairBanFor: d.PairBanFor, FaultCooldown: d.FaultCooldown}
}
