package config

import (
	"strings"
	"testing"
	"time"
)

// Bad render settings are refused naming the field and what to write instead;
// a site's mode wins over the crawl's, a parent domain's covers its subdomains.
func TestRenderOptions(t *testing.T) {
	for _, c := range []struct {
		r    RenderOptions
		want string
	}{
		{RenderOptions{Mode: "sometimes"}, "render.mode \"sometimes\": use auto, always, never or off"},
		{RenderOptions{Sites: []RenderSite{{Host: "x.test", Mode: "yes"}}}, "render.sites[0] (x.test): mode \"yes\""},
		{RenderOptions{Block: []string{"images"}}, "render.block: \"images\" is no resource type"},
		{RenderOptions{Timeout: -1}, "must be >= 0"},
		{RenderOptions{StartTimeout: -time.Second}, "start_timeout"},
	} {
		if err := c.r.validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v; want one with %q", c.r, err, c.want)
		}
	}
	r := RenderOptions{Mode: "never", Sites: []RenderSite{{Host: "spa.test", Mode: "always"}, {Host: "docs.spa.test", Mode: "auto"}}}
	if err := r.validate(); err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string]string{"spa.test": "always", "www.spa.test": "always", "docs.spa.test": "auto", "other.test": "never"} {
		if got := r.RenderModeFor(host); got != want {
			t.Errorf("RenderModeFor(%s) = %s; want %s", host, got, want)
		}
	}
}

// A site's scroll steps are its own (its subdomains' too), bounded; a site entry
// may give steps without a mode, and the mode then comes from elsewhere.
func TestRenderScrollPerSite(t *testing.T) {
	r := RenderOptions{Sites: []RenderSite{{Host: "social.test", Mode: "always", Scroll: 3}, {Host: "m.social.test", Scroll: 1}}}
	if err := r.validate(); err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string]int{"social.test": 3, "www.social.test": 3, "m.social.test": 1, "news.test": 0} {
		if got := r.RenderScrollFor(host); got != want {
			t.Errorf("RenderScrollFor(%s) = %d; want %d", host, got, want)
		}
	}
	if got := r.RenderModeFor("m.social.test"); got != "always" {
		t.Errorf("RenderModeFor(m.social.test) = %s; want always (its parent's: its own entry gives no mode)", got)
	}
	bad := RenderOptions{Sites: []RenderSite{{Host: "social.test", Mode: "always", Scroll: 50}}}
	if err := bad.validate(); err == nil || !strings.Contains(err.Error(), "scroll 50: use 0 to 20 steps") {
		t.Errorf("scroll 50: error %v; want one naming the bound", err)
	}
}
