package sandbox

import (
	"math"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestPublishingModel(t *testing.T) {
	cfg := sbTestConfig()
	cfg.Hosts = 200
	cfg.HTTPAddr = "127.0.0.1:0"
	w := NewWeb(cfg)
	sites := w.PublishingSites()
	modes := map[Announce]int{}
	for _, s := range sites {
		modes[s.Announce]++
	}
	for _, a := range announceOrder {
		if modes[a] == 0 {
			t.Errorf("no site announces with %q (have %v)", a, modes)
		}
	}
	t.Run("heavy-tailed gaps with the site's mean rate", func(t *testing.T) {
		s := sites[0]
		days := 60.0
		arts := w.Published(s.Domain, w.Epoch(), w.Epoch().Add(time.Duration(days*float64(webDay))))
		got := float64(len(arts)) / days
		if math.Abs(got-s.Rate)/s.Rate > 0.35 {
			t.Errorf("%.1f articles a day, want about the site's rate %.1f", got, s.Rate)
		}
		var gaps []float64
		for i := 1; i < len(arts); i++ {
			gaps = append(gaps, arts[i].Published.Sub(arts[i-1].Published).Hours())
		}
		mean, biggest := 0.0, 0.0
		for _, g := range gaps {
			mean += g / float64(len(gaps))
			biggest = math.Max(biggest, g)
		}
		if biggest < 8*mean {
			t.Errorf("longest gap %.1f h is under 8x the mean %.2f h: not heavy-tailed", biggest, mean)
		}
	})
	t.Run("documents list what was published before they were served", func(t *testing.T) {
		for _, s := range sites {
			docs := append(append([]string(nil), s.Feeds...), s.Sitemaps...)
			at := w.Epoch().Add(36 * time.Hour)
			for _, d := range docs {
				body, _, ok := w.RenderDiscovery(d, at)
				if !ok {
					t.Fatalf("%s (%s): not rendered", d, s.Announce)
				}
				latest := w.Published(s.Domain, w.Epoch(), at)
				if n := len(latest); n > 0 && s.Announce != AnnounceIndex && !strings.Contains(string(body), latest[n-1].URL) {
					t.Errorf("%s (%s) at %v lacks the newest article %s", d, s.Announce, at, latest[n-1].URL)
				}
				if s.Announce == AnnounceLyingLM && !strings.Contains(string(body), "<lastmod>"+at.UTC().Format(time.RFC3339)) {
					t.Errorf("the lying sitemap's lastmod is not the serving time")
				}
			}
		}
	})
}

func TestPublishingServed(t *testing.T) {
	sb := sbStart(t, func(c *Config) { c.Hosts = 60; c.Publishing = true; c.Scale = 3600 })
	c := sbClient(sb, "")
	var withSitemap, withFeed *PublishingSite
	for _, s := range sb.web.PublishingSites() {
		s := s
		if s.Announce == AnnounceSitemap && withSitemap == nil {
			withSitemap = &s
		}
		if s.Announce == AnnounceRSS && withFeed == nil {
			withFeed = &s
		}
	}
	if withSitemap == nil || withFeed == nil {
		t.Fatal("the test web has no sitemap or no feed site")
	}
	for _, h := range withSitemap.Hosts {
		r := sbGet(t, c, "http://"+h+sb.web.portSuffix+"/robots.txt")
		if !strings.Contains(string(r.body), "Sitemap: "+withSitemap.Sitemaps[0]) {
			t.Errorf("robots.txt of %s does not name the site's sitemap:\n%s", h, r.body)
		}
	}
	entry := sbGet(t, c, withFeed.Entry)
	if !strings.Contains(string(entry.body), `rel="alternate" type="application/rss+xml" href="`+withFeed.Feeds[0]) {
		t.Errorf("entry page lacks the feed link")
	}
	sbWait(t, 20*time.Second, "an article to be published", func() bool {
		return len(sb.web.Published(withFeed.Domain, sb.web.Epoch(), sb.Now())) > 0
	})
	feed := sbGet(t, c, withFeed.Feeds[0])
	arts := sb.web.Published(withFeed.Domain, sb.web.Epoch(), sb.Now())
	if feed.status != http.StatusOK || !strings.Contains(string(feed.body), arts[0].URL) {
		t.Fatalf("feed: %d, lacks %s", feed.status, arts[0].URL)
	}
	if r := sbGet(t, c, withFeed.Feeds[0], "If-None-Match", feed.header.Get("ETag")); r.status != http.StatusNotModified && len(sb.web.Published(withFeed.Domain, sb.web.Epoch(), sb.Now())) == len(arts) {
		t.Errorf("conditional GET of an unchanged feed: %d, want 304", r.status)
	}
	// A path the site does not publish is the classic model's 404, recorded (and
	// judged by the anti-bot rule) once.
	notPublished := "http://www." + withFeed.Domain + sb.web.portSuffix + "/sitemap.xml"
	if r := sbGet(t, c, notPublished); r.status != http.StatusNotFound {
		t.Errorf("%s on a feed site: %d, want 404", notPublished, r.status)
	}
	n := 0
	for _, r := range sb.Truth().Requests() {
		if r.URL == notPublished {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%s recorded %d times, want once", notPublished, n)
	}
	if r := sbGet(t, c, arts[0].URL); r.status != http.StatusOK {
		t.Errorf("published article: %d", r.status)
	}
	if r := sbGet(t, c, "http://"+arts[0].Host+sb.web.portSuffix+"/story/999999-flood-flood"); r.status != http.StatusNotFound {
		t.Errorf("unpublished article: %d, want 404", r.status)
	}
}

// Config.PublishBacklog: sites have published only that long before the epoch, so
// a crawl's first read of a sitemap lists that much; 0 keeps three web days.
func TestPublishBacklogIsConfigurable(t *testing.T) {
	tests := []struct {
		name    string
		backlog time.Duration
		want    time.Duration
	}{
		{"default: three web days", 0, PublishBacklog},
		{"six web hours", 6 * time.Hour, 6 * time.Hour},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := sbTestConfig()
			cfg.Hosts = 60
			cfg.HTTPAddr = "127.0.0.1:0"
			cfg.PublishBacklog = tc.backlog
			w := NewWeb(cfg)
			oldest := w.Epoch()
			for _, s := range w.PublishingSites() {
				if a := w.Published(s.Domain, w.Epoch().Add(-10*webDay), w.Epoch()); len(a) > 0 && a[0].Published.Before(oldest) {
					oldest = a[0].Published
				}
			}
			if got := w.Epoch().Sub(oldest); got > tc.want || got < tc.want*3/4 {
				t.Errorf("oldest article %v before the epoch, want just under %v", got, tc.want)
			}
		})
	}
	cfg := sbTestConfig()
	cfg.PublishBacklog = -time.Hour
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "PublishBacklog") {
		t.Errorf("a negative PublishBacklog: %v, want an error naming it", err)
	}
}

// WebTime is RealTime's inverse: a crawler's fetch stamp read in web time.
func TestWebTimeInvertsRealTime(t *testing.T) {
	sb := sbStart(t, func(c *Config) { c.Scale = 3600 })
	web := sb.Now().Add(90 * time.Minute)
	if got := sb.WebTime(sb.RealTime(web)); got.Sub(web).Abs() > time.Millisecond*3600 {
		t.Errorf("WebTime(RealTime(%v)) = %v", web, got)
	}
}
