package config

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// RenderOptions configures rendering pages in a headless Chromium (engine/render):
// only the pages that need it, learned per host and path, or per site always or
// never. No browser installed: no page is rendered, and the crawl says so once.
type RenderOptions struct {
	// Mode is auto (default: render the pages that look built by script, as
	// learned per host), always, never (no page, but sites may say otherwise),
	// or off (no browser at all).
	Mode string `yaml:"mode"`
	// Browser is the headless Chromium's path (default: chromium-headless-shell
	// or chromium on PATH, or $CRAWLCONSOLE_BROWSER).
	Browser string `yaml:"browser"`
	// Contexts is how many browser contexts stay open at once (default 4).
	Contexts int `yaml:"contexts"`
	// Timeout caps one render (default 10s).
	Timeout time.Duration `yaml:"timeout"`
	// YieldLimit is how long the page's renderer may leave a trivial question
	// unanswered, while a renderer of the browser runs that long on the CPU,
	// before its script is judged to hold the main thread and the render ends
	// (default 3s, at most half of Timeout).
	YieldLimit time.Duration `yaml:"yield_limit"`
	// StartTimeout bounds the browser's start (default 30s), and its answer when
	// a session's browser context or a new page is made: a browser that takes
	// longer is killed, and the pages waiting for it are kept as fetched.
	StartTimeout time.Duration `yaml:"start_timeout"`
	// MaxRequests caps one render's requests (default 200).
	MaxRequests int `yaml:"max_requests"`
	// MemoryMB caps the browser's memory (PSS, default 400).
	MemoryMB int `yaml:"memory_mb"`
	// Block lists the resource types a page may not load (CDP names; default
	// Image, Media, Font).
	Block []string `yaml:"block"`
	// AllowHosts are the hosts besides a page's own that it may load from.
	AllowHosts []string `yaml:"allow_hosts"`
	// RecheckEvery renders one in this many candidate pages of a section judged
	// static, to see whether it changed (default 50).
	RecheckEvery int `yaml:"recheck_every"`
	// Sites set the mode for some hosts (a host matches its subdomains).
	Sites []RenderSite `yaml:"sites"`
	// Shared, when set (from code), is a running browser (render.StartBrowser's)
	// the crawl renders in instead of starting its own (render.Config.Shared):
	// tests share one. Neither read from a file nor sent to workers.
	Shared context.Context `yaml:"-" json:"-"`
}

// RenderSite is one site's render mode.
type RenderSite struct {
	Host string `yaml:"host"`
	Mode string `yaml:"mode"` // always, never or auto
	// Scroll is how many scroll steps a render of the site's pages takes (0:
	// none, at most MaxRenderScroll): each presses the page's "load more"
	// control or scrolls to the bottom, and waits for the page to settle, for the
	// search results and feeds of social sites that show more as the reader
	// scrolls. The steps stop early when one shows nothing new.
	Scroll int `yaml:"scroll"`
}

// MaxRenderScroll bounds render.sites[].scroll: each step costs a settle and the
// page's requests, within the render's time cap.
const MaxRenderScroll = 20

var renderModes = map[string]bool{"": true, "auto": true, "always": true, "never": true, "off": true}

var blockTypes = map[string]bool{"Document": true, "Stylesheet": true, "Image": true, "Media": true, "Font": true, "Script": true,
	"TextTrack": true, "XHR": true, "Fetch": true, "Prefetch": true, "EventSource": true, "WebSocket": true, "Manifest": true,
	"SignedExchange": true, "Ping": true, "CSPViolationReport": true, "Preflight": true, "FedCM": true, "Other": true}

func (r RenderOptions) validate() error {
	if !renderModes[strings.ToLower(r.Mode)] {
		return fmt.Errorf("render.mode %q: use auto, always, never or off", r.Mode)
	}
	if r.Contexts < 0 || r.Timeout < 0 || r.YieldLimit < 0 || r.StartTimeout < 0 || r.MaxRequests < 0 || r.MemoryMB < 0 || r.RecheckEvery < 0 {
		return fmt.Errorf("render.contexts, timeout, yield_limit, start_timeout, max_requests, memory_mb and recheck_every must be >= 0 (0 = default), got %d, %v, %v, %v, %d, %d, %d",
			r.Contexts, r.Timeout, r.YieldLimit, r.StartTimeout, r.MaxRequests, r.MemoryMB, r.RecheckEvery)
	}
	for _, b := range r.Block {
		if !blockTypes[b] {
			return fmt.Errorf("render.block: %q is no resource type; use Image, Media, Font, Stylesheet, Script, XHR, Fetch, Other...", b)
		}
	}
	for i, s := range r.Sites {
		if strings.TrimSpace(s.Host) == "" {
			return fmt.Errorf("render.sites[%d]: host is empty", i)
		}
		switch strings.ToLower(s.Mode) {
		case "always", "never", "auto":
		case "":
			if s.Scroll == 0 {
				return fmt.Errorf("render.sites[%d] (%s): mode is empty: use always, never or auto", i, s.Host)
			}
		default:
			return fmt.Errorf("render.sites[%d] (%s): mode %q: use always, never or auto", i, s.Host, s.Mode)
		}
		if s.Scroll < 0 || s.Scroll > MaxRenderScroll {
			return fmt.Errorf("render.sites[%d] (%s): scroll %d: use 0 to %d steps", i, s.Host, s.Scroll, MaxRenderScroll)
		}
	}
	return nil
}

// RenderScrollFor is how many scroll steps a render of host's pages takes: its
// site's (the longest host that matches), else none.
func (r RenderOptions) RenderScrollFor(host string) int {
	if s := r.site(host, func(s RenderSite) bool { return s.Scroll > 0 }); s != nil {
		return s.Scroll
	}
	return 0
}

// site is the entry of render.sites for host that has what has asks: the
// longest host matching (a host matches its subdomains); nil if none.
func (r RenderOptions) site(host string, has func(RenderSite) bool) *RenderSite {
	host = strings.ToLower(host)
	best := -1
	var out *RenderSite
	for i, s := range r.Sites {
		h := strings.ToLower(strings.TrimSpace(s.Host))
		if (host == h || strings.HasSuffix(host, "."+h)) && len(h) > best && has(s) {
			best, out = len(h), &r.Sites[i]
		}
	}
	return out
}

// RenderModeFor is a host's render mode: its site's, else render.mode (off and
// empty read as never and auto).
func (r RenderOptions) RenderModeFor(host string) string {
	mode := ""
	if s := r.site(host, func(s RenderSite) bool { return s.Mode != "" }); s != nil {
		mode = strings.ToLower(s.Mode)
	}
	if mode != "" {
		return mode
	}
	switch m := strings.ToLower(r.Mode); m {
	case "", "auto":
		return "auto"
	case "off":
		return "never"
	default:
		return m
	}
}
