package config

import "time"

// DNSOptions configures the DNS prefetch cache (M5, seed 004).
type DNSOptions struct {
	// MinTTL and MaxTTL clamp positive answers' TTLs (default 5m..6h).
	MinTTL time.Duration `yaml:"min_ttl"`
	MaxTTL time.Duration `yaml:"max_ttl"`
	// SlowThreshold: answers slower than this go to the negative cache (default 500ms).
	SlowThreshold time.Duration `yaml:"slow_threshold"`
	// Prefetch pre-resolves the hosts of queued URLs (default true).
	Prefetch bool `yaml:"prefetch"`
	// Workers caps the prefetch worker pool (default 512).
	Workers int `yaml:"workers"`
	// Timeout bounds one DNS exchange (default 2s).
	Timeout time.Duration `yaml:"timeout"`
}
