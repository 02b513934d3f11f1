package config

import (
	"strings"
	"testing"
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
