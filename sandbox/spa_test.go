package sandbox

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The SPA web serves shells whose content only the API has, a 404 shell, plain
// sites, and logs what it served; the gap judge counts overlaps and short gaps.
func TestSPAWeb(t *testing.T) {
	s, err := StartSPA([]string{"127.0.0.1", "127.0.0.1", "127.0.0.1", "127.0.0.1", "127.0.0.1"}, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	get := func(u string) (int, string) {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if st, body := get(s.URL(SPASite)); st != 200 || strings.Contains(body, "/a/1") || !strings.Contains(body, `id="root"`) {
		t.Errorf("SPA home: %d %q; want a shell without the article links", st, body)
	}
	var list []map[string]string
	_, body := get(s.URL(SPASite) + "api/list")
	if err := json.Unmarshal([]byte(body), &list); err != nil || len(list) != 4 || list[1]["url"] != "/a/1" {
		t.Errorf("SPA list %q (%v)", body, err)
	}
	if st, _ := get(s.URL(ErrorSite)); st != 404 {
		t.Errorf("error site home answered %d; want 404", st)
	}
	if _, body := get(s.URL(StaticSite)); !strings.Contains(body, `href="/s/3"`) {
		t.Errorf("static home lacks its links: %q", body)
	}
	if got := s.TruthLinks(MixedSite, "/"); len(got) != 4 || got[0] != "/app/0" || got[1] != "/news/1" {
		t.Errorf("mixed truth %v", got)
	}
	t0 := time.Now()
	log := []SPARequest{
		{Host: "h", ClientIP: "a", Start: t0, End: t0.Add(10 * time.Millisecond)},
		{Host: "h", ClientIP: "a", Start: t0.Add(5 * time.Millisecond), End: t0.Add(20 * time.Millisecond)},    // overlaps
		{Host: "h", ClientIP: "a", Start: t0.Add(200 * time.Millisecond), End: t0.Add(210 * time.Millisecond)}, // fine
		{Host: "h", ClientIP: "b", Start: t0.Add(201 * time.Millisecond), End: t0.Add(210 * time.Millisecond)}, // another client
		{Host: "h", ClientIP: "a", Start: t0.Add(250 * time.Millisecond), End: t0.Add(260 * time.Millisecond)}, // 40 ms gap
	}
	if n := GapBreaks(log, 100*time.Millisecond); n != 2 {
		t.Errorf("GapBreaks = %d; want 2", n)
	}
	// A request is logged as its handler returns, just after the client read it.
	for deadline := time.Now().Add(sbPatience); len(s.Log()) < 4 && time.Now().Before(deadline); { // a guard
		time.Sleep(time.Millisecond)
	}
	if n := len(s.Log()); n != 4 {
		t.Errorf("log has %d requests; want 4", n)
	}
}
