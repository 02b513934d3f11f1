package sandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/miekg/dns"
)

func fetchTruth(t *testing.T, sb *Sandbox, since int) TruthDump {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("%s?since=%d", sb.TruthURL(), since))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var d TruthDump
	if err := json.NewDecoder(resp.Body).Decode(&d); err != nil {
		t.Fatalf("decoding /truth: %v", err)
	}
	return d
}

func TestTruthEndpointReflectsExactlyWhatHappened(t *testing.T) {
	sb := sbStart(t, func(c *Config) { c.AntiBot.Enabled = false })
	w := sb.Web()
	s := sbSiteWith(t, w, 3)
	sec := s.hosts[1]
	private := w.urlOf(page{h: sec, kind: pkPrivate, a: 1})
	article := sbArticle(w, sec, 2, 3)
	made := []struct {
		url, ip string
		status  int
		kind    string
	}{
		{s.Entry, "127.0.0.1", 200, KindEntry},
		{"http://" + sec.name + w.portSuffix + "/robots.txt", "127.0.0.1", 200, KindRobots},
		{w.urlOf(page{h: sec, kind: pkListing, a: 1}), "127.0.0.2", 200, KindListing},
		{article, "127.0.0.2", 200, KindArticle},
		{private, "127.0.0.3", 200, KindPrivate},
		{"http://" + sec.name + w.portSuffix + "/no/such/page", "127.0.0.1", 404, KindUnknown},
		{"http://unknown.example" + w.portSuffix + "/", "127.0.0.1", 404, KindUnknown},
	}
	before := time.Now()
	for _, m := range made {
		if r := sbGet(t, sbClient(sb, m.ip), m.url); r.status != m.status {
			t.Fatalf("%s: status %d, want %d", m.url, r.status, m.status)
		}
	}
	after := time.Now()
	if _, _, err := dnsQuery(t, sb, "udp", sec.name, dns.TypeA, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, _, err := dnsQuery(t, sb, "udp", sec.name, dns.TypeA, 5*time.Second); err != nil {
		t.Fatal(err)
	}

	d := fetchTruth(t, sb, 0)
	if len(d.Requests) != len(made) || d.Next != len(made) {
		t.Fatalf("truth has %d requests (next %d), made %d", len(d.Requests), d.Next, len(made))
	}
	for i, m := range made {
		r := d.Requests[i]
		if r.URL != m.url || r.IP != m.ip || r.Status != m.status || r.Kind != m.kind {
			t.Errorf("request %d: truth %+v, made %+v", i, r, m)
		}
		if r.Start.Before(before) || r.End.After(after) || r.End.Before(r.Start) {
			t.Errorf("request %d: times %v..%v outside %v..%v", i, r.Start, r.End, before, after)
		}
		if r.Robots != (m.url == private) {
			t.Errorf("request %d (%s): robots %v", i, m.url, r.Robots)
		}
	}
	if d.Requests[3].Parent != w.urlOf(page{h: sec, kind: pkListing, a: 2}) || d.Requests[0].Parent != "" {
		t.Errorf("parents: %q, %q", d.Requests[3].Parent, d.Requests[0].Parent)
	}
	if len(d.RobotsViolations) != 1 || d.RobotsViolations[0].URL != private {
		t.Errorf("robots violations %+v, want only %s", d.RobotsViolations, private)
	}
	if d.DNSQueries[sec.name] != 2 || d.DNSTotal != 2 {
		t.Errorf("DNS %v total %d, want 2 queries for %s", d.DNSQueries, d.DNSTotal, sec.name)
	}
	if _, ok := d.Changes[article]; ok != (w.ChangeRate(article) > 0) {
		t.Errorf("changes of %s present=%v, rate %v", article, ok, w.ChangeRate(article))
	}
	if len(d.Bans) != 0 {
		t.Errorf("bans %v with anti-bot off", d.Bans)
	}

	tail := fetchTruth(t, sb, 5)
	if len(tail.Requests) != 2 || tail.Requests[0].URL != made[5].url || tail.Since != 5 {
		t.Errorf("?since=5 gave %d requests starting %v", len(tail.Requests), tail.Requests)
	}
	if got := fetchTruth(t, sb, 100); len(got.Requests) != 0 || got.Next != len(made) {
		t.Errorf("?since past the end: %d requests, next %d", len(got.Requests), got.Next)
	}
	resp, err := http.Get(sb.TruthURL() + "?since=-1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("?since=-1: status %d, want 400", resp.StatusCode)
	}
}

func TestTruthChangesAreRealTimes(t *testing.T) {
	t.Parallel()
	sb := sbStart(t, func(c *Config) { c.Scale = 86400 }) // a web day per real second
	w := sb.Web()
	var url string
	for _, p := range w.Pages() {
		if p.ChangeRate > 5 && url == "" {
			url = p.URL
		}
	}
	start := time.Now()
	sbWait(t, 20*time.Second, "three changes", func() bool { return len(sb.Truth().Changes(url)) >= 3 })
	got := sb.Truth().Changes(url)
	web := w.ChangeTimes(url, w.Epoch(), sb.Now())
	if len(web) < len(got) {
		t.Fatalf("%d real change times, %d web ones", len(got), len(web))
	}
	for i, rt := range got {
		if rt.After(time.Now()) || rt.Before(start.Add(-time.Second)) {
			t.Errorf("change %d at %v: not a real time of this run", i, rt)
		}
		if d := sb.RealTime(web[i]).Sub(rt); d < -time.Millisecond || d > time.Millisecond {
			t.Errorf("change %d: real %v vs web %v", i, rt, web[i])
		}
	}
}

func TestConditionalGet(t *testing.T) {
	t.Parallel()
	sb := sbStart(t, func(c *Config) {
		c.Scale = 86400 / 8 // a web day every 8 real seconds
		c.AntiBot.Enabled = false
	})
	w := sb.Web()
	c := sbClient(sb, "")
	var still, changing []PageInfo
	for _, p := range w.Pages() {
		switch {
		case p.Kind != KindArticle:
		case p.ChangeRate == 0:
			still = append(still, p)
		case p.ChangeRate > 4 && p.ChangeRate < 16:
			changing = append(changing, p)
		}
	}
	sort.Slice(changing, func(i, j int) bool { return changing[i].ChangeRate > changing[j].ChangeRate })

	t.Run("unchanged page", func(t *testing.T) {
		u := still[0].URL
		r := sbGet(t, c, u)
		etag, lm := r.header.Get("ETag"), r.header.Get("Last-Modified")
		if etag == "" || lm == "" {
			t.Fatalf("validators missing: %v", r.header)
		}
		for _, h := range [][]string{{"If-None-Match", etag}, {"If-None-Match", `"x", ` + etag}, {"If-Modified-Since", lm}} {
			if got := sbGet(t, c, u, h...); got.status != http.StatusNotModified || len(got.body) != 0 {
				t.Errorf("%s: %s → %d, want 304", h[0], h[1], got.status)
			}
		}
		old := time.Now().Add(-24 * time.Hour).UTC().Format(http.TimeFormat)
		for _, h := range [][]string{{"If-None-Match", `W/"0000000000000000"`}, {"If-Modified-Since", old}} {
			if got := sbGet(t, c, u, h...); got.status != 200 {
				t.Errorf("%s: %s → %d, want 200", h[0], h[1], got.status)
			}
		}
	})
	t.Run("after a real change", func(t *testing.T) {
		u := changing[0].URL
		// Fetch at a moment whose next change is comfortably ahead, so the 304 check
		// cannot race a change: the page was rendered after before and before next.
		var r sbResponse
		for {
			before := sb.Now()
			next := sb.RealTime(w.ChangeTimes(u, before, before.Add(365*webDay))[0])
			r = sbGet(t, c, u)
			if time.Until(next) > time.Second {
				break
			}
			sbWait(t, 30*time.Second, "the imminent change", func() bool { return time.Now().After(next) })
		}
		etag, lm := r.header.Get("ETag"), r.header.Get("Last-Modified")
		if got := sbGet(t, c, u, "If-None-Match", etag); got.status != http.StatusNotModified {
			t.Fatalf("before the change: %d, want 304", got.status)
		}
		lmTime, _ := http.ParseTime(lm)
		// Wait for a change that falls in a later second than Last-Modified, since
		// If-Modified-Since has HTTP's one-second resolution.
		var later time.Time
		for _, ct := range w.ChangeTimes(u, sb.Now(), sb.Now().Add(365*webDay)) {
			if rt := sb.RealTime(ct); rt.Truncate(time.Second).After(lmTime) {
				later = rt
				break
			}
		}
		sbWait(t, 30*time.Second, "the next change", func() bool { return time.Now().After(later) })
		got := sbGet(t, c, u, "If-None-Match", etag)
		if got.status != 200 || got.header.Get("ETag") == etag {
			t.Fatalf("after the change: %d with ETag %s, want 200 with a new ETag", got.status, got.header.Get("ETag"))
		}
		if articleText(got.body) == articleText(r.body) {
			t.Error("content identical after a change")
		}
		if got := sbGet(t, c, u, "If-Modified-Since", lm); got.status != 200 {
			t.Errorf("If-Modified-Since %s after a change: %d, want 200", lm, got.status)
		}
	})
}
