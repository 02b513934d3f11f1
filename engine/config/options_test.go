package config

import (
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/egress"
)

// TestRotationDefaultsAreTheRotations: the documented rotation defaults are the
// egress rotation's own, so a config that leaves them out and one that spells the
// defaults out crawl alike.
func TestRotationDefaultsAreTheRotations(t *testing.T) {
	t.Parallel()
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

// TestSizesAreCheckedAgainstMemory: a size that would take more than half of the
// machine's memory is refused at start-up, naming the setting (a typo in
// dedupe.expected_urls would otherwise allocate gigabytes).
func TestSizesAreCheckedAgainstMemory(t *testing.T) {
	t.Parallel()
	const mem = 8 << 30
	o := DefaultOptions()
	if err := o.checkMemory(mem); err != nil {
		t.Fatalf("the defaults on an 8 GiB machine: %v", err)
	}
	for name, set := range map[string]func(*Options){
		"dedupe.expected_urls": func(o *Options) { o.Dedupe.ExpectedURLs = 100_000_000_000 },
		"dedupe.lru_size":      func(o *Options) { o.Dedupe.LRUSize = 1_000_000_000 },
		"queue_memory":         func(o *Options) { o.QueueMemory = 100_000_000 },
	} {
		o := DefaultOptions()
		set(&o)
		err := o.checkMemory(mem)
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "GiB") {
			t.Errorf("%s too large: %v; want an error naming it and the memory", name, err)
		}
	}
	if physicalMemory() == 0 {
		t.Log("this machine's memory is unknown: sizes are not checked here")
	}
}

// TestUserAgentIsBounded: a User-Agent the size of a file, or with a line break in
// it, is refused at start-up with a message naming user_agent, its size and the cap;
// an ordinary one is taken.
func TestUserAgentIsBounded(t *testing.T) {
	t.Parallel()
	o := DefaultOptions()
	o.UserAgent = "examplebot/2.1 (+https://example.org/bot)"
	if err := o.Validate(); err != nil {
		t.Fatalf("an ordinary User-Agent: %v", err)
	}
	o.UserAgent = strings.Repeat("a", 200<<20)
	err := o.Validate()
	if err == nil || !strings.Contains(err.Error(), "user_agent") || !strings.Contains(err.Error(), "209715200 bytes") ||
		!strings.Contains(err.Error(), "512") {
		t.Fatalf("a 200 MB User-Agent: %v; want an error naming user_agent, its size and the cap", err)
	}
	o.UserAgent = "examplebot/2.1\r\nX-Injected: 1"
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "user_agent") {
		t.Fatalf("a User-Agent with a line break: %v; want it refused", err)
	}
}

// TestGCPercentMustNotBeNegative: a negative gc_percent (GOGC off: a heap that only
// the memory limit bounds) is refused at start-up, naming the setting.
func TestGCPercentMustNotBeNegative(t *testing.T) {
	t.Parallel()
	o := DefaultOptions()
	o.GCPercent = -1
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "gc_percent") {
		t.Fatalf("gc_percent -1: %v; want an error naming gc_percent", err)
	}
	o.GCPercent = 300
	if err := o.Validate(); err != nil {
		t.Fatalf("gc_percent 300: %v", err)
	}
}
