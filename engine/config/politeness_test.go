package config

import (
	"strings"
	"testing"
	"time"
)

// Bad politeness and cookie settings are refused with the key named; the defaults
// are the documented ones.
func TestPolitenessAndCookieOptions(t *testing.T) {
	t.Parallel()
	d := DefaultOptions()
	if p := d.Politeness; p.DelayFactor != 5 || p.MaxDelay != 30*time.Second || p.BackoffMin != time.Minute || p.BackoffMax != time.Hour || p.ForgiveAfter != 10*time.Minute {
		t.Fatalf("politeness defaults %+v differ from the README's (5, 30s, 1m, 1h, 10m)", p)
	}
	if c := d.Cookies; !c.Enabled || c.PerSite != 50 || c.BytesPerSite != 50*4096 || c.Sites != 10_000 {
		t.Fatalf("cookie defaults %+v differ from the README's", c)
	}
	for _, c := range []struct {
		name string
		set  func(o *Options)
		want string
	}{
		{"negative factor", func(o *Options) { o.Politeness.DelayFactor = -1 }, "politeness.delay_factor"},
		{"absurd factor", func(o *Options) { o.Politeness.DelayFactor = 1e9 }, "politeness.delay_factor"},
		{"negative back-off", func(o *Options) { o.Politeness.BackoffMin = -time.Second }, "politeness.max_delay, backoff_min"},
		{"cap below the first back-off", func(o *Options) { o.Politeness.BackoffMax = time.Second }, "politeness.backoff_max"},
		{"negative cookie bound", func(o *Options) { o.Cookies.PerSite = -1 }, "cookies.per_site"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := DefaultOptions()
			c.set(&o)
			err := o.Validate()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Validate() = %v, want an error naming %q", err, c.want)
			}
		})
	}
	o := DefaultOptions()
	o.Politeness, o.Cookies.Enabled = FixedPoliteness(), false
	if err := o.Validate(); err != nil {
		t.Fatalf("politeness and cookies off must validate: %v", err)
	}
}
