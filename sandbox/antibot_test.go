package sandbox

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// sbSiteWith returns the first site with at least n hosts (www + n-1 sections).
func sbSiteWith(t *testing.T, w *Web, n int) *website {
	t.Helper()
	for _, s := range w.sites {
		if len(s.hosts) >= n && !s.social {
			return s
		}
	}
	t.Fatalf("no news site with %d hosts", n)
	return nil
}

func sbArticle(w *Web, h *vhost, listing, i int) string {
	return w.urlOf(page{h: h, kind: pkArticle, a: listing, b: i})
}

func sbTop(w *Web, s *website, i int) string {
	return w.urlOf(page{h: topHost(s, i), kind: pkTop, b: i})
}

// isBanResponse tells whether r is the ban answer of host h.
func isBanResponse(h *vhost, r sbResponse) bool {
	switch h.banStyle {
	case banDeny:
		return r.status == http.StatusForbidden && strings.Contains(string(r.body), "Access denied")
	case banTooMany:
		return r.status == http.StatusTooManyRequests && r.header.Get("Retry-After") != ""
	default:
		return r.status == http.StatusOK && strings.Contains(string(r.body), "Verify you are human")
	}
}

func TestBanOnTooFastAdjacentFetching(t *testing.T) {
	t.Run("same host, back to back", func(t *testing.T) {
		sb := sbStart(t, nil) // defaults: HumanGap 2 s, K = 3, Scale 1
		w := sb.Web()
		h := sbSiteWith(t, w, 3).hosts[1]
		c := sbClient(sb, "")
		var got []sbResponse
		for i := 1; i <= 6; i++ {
			got = append(got, sbGet(t, c, sbArticle(w, h, 1, i)))
		}
		for i := 0; i < 4; i++ {
			if got[i].status != 200 || isBanResponse(h, got[i]) {
				t.Fatalf("request %d: status %d before K=3 violations were exceeded", i+1, got[i].status)
			}
		}
		for i := 4; i < 6; i++ {
			if !isBanResponse(h, got[i]) {
				t.Fatalf("request %d (4th violation and later): status %d, want the ban answer of %s (style %d)", i+1, got[i].status, h.name, h.banStyle)
			}
		}
		reqs := sb.Truth().Requests()
		for i, r := range reqs {
			if wantV := i >= 1 && i <= 4; r.Violation != wantV {
				t.Errorf("request %d: violation %v, want %v", i+1, r.Violation, wantV)
			}
			if wantB := i >= 4; r.Banned != wantB {
				t.Errorf("request %d: banned %v, want %v", i+1, r.Banned, wantB)
			}
		}
		bans := sb.Truth().Bans()
		if len(bans) != 1 || bans[0].Host != h.name || bans[0].IP != "127.0.0.1" || bans[0].Reason != BanAdjacency {
			t.Fatalf("bans = %+v, want one adjacency ban of 127.0.0.1 on %s", bans, h.name)
		}
		if d := bans[0].Until.Sub(bans[0].At); d != 30*time.Minute {
			t.Errorf("ban lasts %v, want BanFor 30m at scale 1", d)
		}
		// The ban is per host: another site is still served.
		other := w.sites[len(w.sites)-1].Entry
		if r := sbGet(t, c, other); r.status != 200 {
			t.Errorf("other site after the ban: status %d", r.status)
		}
	})
	t.Run("same parent on different hosts, back to back", func(t *testing.T) {
		sb := sbStart(t, func(c *Config) { c.AntiBot.MaxViolations = 0 })
		w := sb.Web()
		s := sbSiteWith(t, w, 3)
		c := sbClient(sb, "")
		first := sbGet(t, c, sbTop(w, s, 0))
		second := sbGet(t, c, sbTop(w, s, 1))
		if first.status != 200 || !isBanResponse(topHost(s, 1), second) {
			t.Fatalf("statuses %d, %d: want 200 then the ban answer of %s", first.status, second.status, topHost(s, 1).name)
		}
		if bans := sb.Truth().Bans(); len(bans) != 1 || bans[0].Host != topHost(s, 1).name {
			t.Fatalf("bans = %+v, want one on %s", bans, topHost(s, 1).name)
		}
	})
	t.Run("robots.txt counts as a request to the host", func(t *testing.T) {
		sb := sbStart(t, func(c *Config) { c.AntiBot.MaxViolations = 0 })
		w := sb.Web()
		s := sbSiteWith(t, w, 3)
		c := sbClient(sb, "")
		robots := sbGet(t, c, "http://"+s.hosts[0].name+w.portSuffix+"/robots.txt")
		entry := sbGet(t, c, s.Entry)
		if robots.status != 200 || !isBanResponse(s.hosts[0], entry) {
			t.Fatalf("robots %d then entry %d: want the entry banned", robots.status, entry.status)
		}
	})
}

// sbHold starts a trickled request and returns once its headers arrived: the request
// is then in flight at the sandbox until release is called.
func sbHold(t *testing.T, c *http.Client, url string) (release func()) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: status %d", url, resp.StatusCode)
	}
	return func() { resp.Body.Close() }
}

func TestBanOnConcurrentAdjacentFetching(t *testing.T) {
	// Every article trickles for seconds, HumanGap is 0 (only overlap counts) and K is 0.
	trickling := func(c *Config) {
		c.Faults.Shares = map[string]float64{FaultTrickle: 1}
		c.Faults.TrickleChunk, c.Faults.TrickleInterval = 64, 200*time.Millisecond
		c.AntiBot.HumanGap, c.AntiBot.MaxViolations = 0, 0
	}
	for _, tc := range []struct {
		name      string
		held, hit func(w *Web, s *website) string
		hitHost   func(s *website) *vhost
		wantBan   bool
	}{
		{"same host", func(w *Web, s *website) string { return sbArticle(w, s.hosts[1], 1, 1) },
			func(w *Web, s *website) string { return sbArticle(w, s.hosts[1], 2, 5) },
			func(s *website) *vhost { return s.hosts[1] }, true},
		{"same parent, different hosts", func(w *Web, s *website) string { return sbTop(w, s, 0) },
			func(w *Web, s *website) string { return sbTop(w, s, 1) },
			func(s *website) *vhost { return topHost(s, 1) }, true},
		{"different host and parent", func(w *Web, s *website) string { return sbArticle(w, s.hosts[1], 1, 1) },
			func(w *Web, s *website) string { return sbArticle(w, s.hosts[2], 1, 1) },
			func(s *website) *vhost { return s.hosts[2] }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb := sbStart(t, trickling)
			w := sb.Web()
			s := sbSiteWith(t, w, 3)
			c := sbClient(sb, "")
			release := sbHold(t, c, tc.held(w, s))
			resp, err := c.Get(tc.hit(w, s))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			release()
			var hit Request
			for _, r := range sb.Truth().Requests() {
				if r.URL == tc.hit(w, s) {
					hit = r
				}
			}
			if hit.Violation != tc.wantBan || hit.Banned != tc.wantBan {
				t.Fatalf("overlapping request: violation %v, banned %v; want %v", hit.Violation, hit.Banned, tc.wantBan)
			}
			if tc.wantBan {
				if bans := sb.Truth().Bans(); len(bans) != 1 || bans[0].Host != tc.hitHost(s).name {
					t.Fatalf("bans = %+v, want one on %s", bans, tc.hitHost(s).name)
				}
			}
		})
	}
}

func TestPoliteFetchingIsNeverBanned(t *testing.T) {
	t.Parallel() // its own sandboxes; it waits out the crawler's pauses
	t.Run("serial with gaps ≥ HumanGap", func(t *testing.T) {
		const gap = 40 * time.Millisecond
		sb := sbStart(t, func(c *Config) { c.AntiBot.HumanGap, c.AntiBot.MaxViolations = gap, 0 })
		w := sb.Web()
		s := sbSiteWith(t, w, 3)
		c := sbClient(sb, "")
		urls := []string{s.Entry, sbTop(w, s, 0), sbTop(w, s, 1), sbTop(w, s, 2)}
		for i := 1; i <= 6; i++ {
			urls = append(urls, sbArticle(w, s.hosts[1], 1, i))
		}
		for _, u := range urls {
			if r := sbGet(t, c, u); r.status != 200 || strings.Contains(string(r.body), "Verify you are human") {
				t.Fatalf("%s: status %d", u, r.status)
			}
			time.Sleep(gap * 3 / 2) // the crawler's own pause: what politeness means
		}
		assertNoViolations(t, sb)
	})
	t.Run("fast and parallel but never adjacent", func(t *testing.T) {
		sb := sbStart(t, func(c *Config) { c.AntiBot.MaxViolations = 0 })
		w := sb.Web()
		var urls []string
		for _, s := range w.sites {
			urls = append(urls, s.Entry)
			for _, h := range s.hosts[1:] {
				urls = append(urls, w.urlOf(page{h: h, kind: pkArticle, a: 1, b: 1}))
			}
		}
		c := sbClient(sb, "")
		var wg sync.WaitGroup
		statuses := make([]int, len(urls))
		for i, u := range urls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if resp, err := c.Get(u); err == nil {
					statuses[i] = resp.StatusCode
					resp.Body.Close()
				}
			}()
		}
		wg.Wait()
		for i, st := range statuses {
			if st != 200 {
				t.Errorf("%s: status %d", urls[i], st)
			}
		}
		if n := len(sb.Truth().Requests()); n != len(urls) {
			t.Fatalf("truth has %d requests, made %d", n, len(urls))
		}
		assertNoViolations(t, sb)
	})
}

func assertNoViolations(t *testing.T, sb *Sandbox) {
	t.Helper()
	for _, r := range sb.Truth().Requests() {
		if r.Violation || r.Banned {
			t.Errorf("%s: violation %v, banned %v", r.URL, r.Violation, r.Banned)
		}
	}
	if bans := sb.Truth().Bans(); len(bans) > 0 {
		t.Errorf("bans: %+v", bans)
	}
}

func TestSourceAddressesAreDifferentClients(t *testing.T) {
	sb := sbStart(t, nil)
	w := sb.Web()
	h := sbSiteWith(t, w, 3).hosts[1]
	bot, human := sbClient(sb, "127.0.0.2"), sbClient(sb, "127.0.0.3")
	for i := 1; i <= 5; i++ {
		sbGet(t, bot, sbArticle(w, h, 1, i))
	}
	if r := sbGet(t, bot, sbArticle(w, h, 2, 1)); !isBanResponse(h, r) {
		t.Fatalf("127.0.0.2 not banned after 4 violations: status %d", r.status)
	}
	if r := sbGet(t, human, sbArticle(w, h, 2, 2)); r.status != 200 || isBanResponse(h, r) {
		t.Fatalf("127.0.0.3 got the ban of 127.0.0.2: status %d", r.status)
	}
	bans := sb.Truth().Bans()
	if len(bans) != 1 || bans[0].IP != "127.0.0.2" {
		t.Fatalf("bans = %+v, want only 127.0.0.2", bans)
	}
	ips := map[string]int{}
	for _, r := range sb.Truth().Requests() {
		ips[r.IP]++
	}
	if ips["127.0.0.2"] != 6 || ips["127.0.0.3"] != 1 {
		t.Fatalf("requests per IP: %v", ips)
	}
}

func TestBanStylesAndExpiry(t *testing.T) {
	for _, style := range []banStyle{banDeny, banTooMany, banCaptcha} {
		t.Run([...]string{"403 deny page", "429 Retry-After", "200 captcha"}[style], func(t *testing.T) {
			t.Parallel()
			// Back-to-back requests are far inside a 1 s gap even on a loaded machine;
			// the request after the 1.5 s ban is far outside it.
			sb := sbStart(t, func(c *Config) {
				c.AntiBot.MaxViolations, c.AntiBot.HumanGap, c.AntiBot.BanFor = 0, time.Second, 1500*time.Millisecond
			})
			w := sb.Web()
			var h *vhost
			for _, s := range w.sites {
				for _, x := range s.hosts[1:] {
					if x.banStyle == style && h == nil && !s.social {
						h = x
					}
				}
			}
			if h == nil {
				t.Skipf("no host with style %d in this web", style)
			}
			c := sbClient(sb, "")
			sbGet(t, c, sbArticle(w, h, 1, 1))
			r := sbGet(t, c, sbArticle(w, h, 1, 2))
			if !isBanResponse(h, r) {
				t.Fatalf("status %d, want the %d-style ban answer", r.status, style)
			}
			if style == banTooMany {
				if s, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || s < 1 {
					t.Errorf("Retry-After %q", r.header.Get("Retry-After"))
				}
			}
			until := sb.Truth().Bans()[0].Until
			sbWait(t, 10*time.Second, "the ban to expire", func() bool { return time.Now().After(until) })
			if r := sbGet(t, c, sbArticle(w, h, 1, 3)); r.status != 200 || isBanResponse(h, r) {
				t.Fatalf("after the ban: status %d", r.status)
			}
		})
	}
}

func TestRequestQuota(t *testing.T) {
	t.Parallel()
	sb := sbStart(t, func(c *Config) {
		// The web hour of the quota lasts 1.5 real seconds from the first request:
		// the four requests below take milliseconds on loopback.
		c.Scale = 2400
		c.AntiBot.HumanGap, c.AntiBot.Quota = 0, 3
	})
	w := sb.Web()
	s := sbSiteWith(t, w, 3)
	c := sbClient(sb, "")
	var got []sbResponse
	for i := 1; i <= 4; i++ {
		got = append(got, sbGet(t, c, sbArticle(w, s.hosts[1], 1, i)))
	}
	for i := 0; i < 3; i++ {
		if got[i].status != 200 {
			t.Fatalf("request %d within the quota: status %d", i+1, got[i].status)
		}
	}
	if ra, _ := strconv.Atoi(got[3].header.Get("Retry-After")); got[3].status != http.StatusTooManyRequests || ra < 1 || ra > 2 {
		t.Fatalf("request past the quota: status %d, Retry-After %q; want 429 and 1..2 s", got[3].status, got[3].header.Get("Retry-After"))
	}
	reqs := sb.Truth().Requests()
	if last := reqs[len(reqs)-1]; !last.Limited || last.Banned {
		t.Fatalf("truth: limited %v banned %v", last.Limited, last.Banned)
	}
	if r := sbGet(t, c, sbArticle(w, s.hosts[2], 1, 1)); r.status != 200 {
		t.Fatalf("another host: status %d (the quota is per host)", r.status)
	}
	sbWait(t, 10*time.Second, "the quota window to roll over", func() bool {
		return sbGet(t, c, sbArticle(w, s.hosts[1], 1, 5)).status == 200
	})
}

func TestSearchQuota(t *testing.T) {
	for _, tc := range []struct {
		name     string
		banShare float64
	}{{"429 past the quota", 0}, {"ban past the quota", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			sb := sbStart(t, func(c *Config) {
				c.AntiBot.HumanGap, c.Search.Quota, c.Search.BanShare = 0, 2, tc.banShare
			})
			w := sb.Web()
			var s *website
			for _, x := range w.sites {
				if x.social && s == nil {
					s = x
				}
			}
			c := sbClient(sb, "")
			search := func(kw string) sbResponse {
				u := strings.NewReplacer("{keyword}", kw, "{page}", "1").Replace(s.Search)
				return sbGet(t, c, u)
			}
			for i := 0; i < 2; i++ {
				r := search(s.keywords[i])
				if r.status != 200 || !strings.Contains(string(r.body), "/s/"+s.keywords[i]+"/1-1.html") {
					t.Fatalf("search %d: status %d or no result links", i+1, r.status)
				}
			}
			r := search(s.keywords[2])
			bans := sb.Truth().Bans()
			if tc.banShare == 0 {
				if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" || len(bans) != 0 {
					t.Fatalf("third search: status %d, bans %v; want 429 with Retry-After", r.status, bans)
				}
				return
			}
			if !isBanResponse(s.hosts[0], r) || len(bans) != 1 || bans[0].Reason != BanSearchQuota {
				t.Fatalf("third search: status %d, bans %+v; want a search-quota ban", r.status, bans)
			}
			if e := sbGet(t, c, s.Entry); !isBanResponse(s.hosts[0], e) {
				t.Fatalf("entry page after the search ban: status %d", e.status)
			}
		})
	}
}
