package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/internal/uitest"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// smallSite serves n linked pages on loopback.
func smallSite(t *testing.T, n int) *httptest.Server {
	t.Helper()
	return uitest.HTMLSite(t, func(w io.Writer, _ string) {
		fmt.Fprint(w, "<html><body><p>page</p>")
		for i := range n {
			fmt.Fprintf(w, `<a href="/p%d">p%d</a>`, i, i)
		}
		fmt.Fprint(w, "</body></html>")
	})
}

// stateOptions is a fast crawl of srv with loopback allowed.
func stateOptions(t *testing.T, srv *httptest.Server) config.Options {
	o := config.DefaultOptions()
	o.DB = filepath.Join(t.TempDir(), "s.db")
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Lanes.DelayMin, o.Lanes.DelayMax = 0, time.Millisecond
	o.HostRate = 0
	o.Revisit.Enabled = false
	return o
}

// A crawl that ran dry says so: DONE in the header once nothing is left (it said
// RUNNING until stopped), IDLE with the time of the next round when its declared
// sites come back every round.
func TestRanDryCrawlSaysDoneOrIdleUntilTheNextRound(t *testing.T) {
	t.Parallel() // its own site and stores; it waits on two crawls
	srv := smallSite(t, 3)
	for _, c := range []struct {
		name   string
		rounds bool
		want   view.State
	}{{"seeds only", false, view.StateDone}, {"a news site in rounds", true, view.StateIdle}} {
		t.Run(c.name, func(t *testing.T) {
			o := stateOptions(t, srv)
			if c.rounds {
				o.Sites = []config.SiteOptions{{Name: "local", Kind: config.SiteNews, Entry: srv.URL + "/"}}
				o.Rounds.Every = time.Hour
			} else {
				o.Seeds = []string{srv.URL + "/"}
			}
			eng, err := engine.New(o)
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			if err := eng.Start(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-eng.Done():
			case <-time.After(time.Minute):
				t.Fatalf("the crawl of 4 pages did not run dry in a minute: %+v", eng.Snapshot().Totals)
			}
			s := eng.Snapshot()
			if s.State != c.want {
				t.Fatalf("state %q after the crawl ran dry; want %q", s.State, c.want)
			}
			if c.rounds {
				if left := time.Until(s.NextRound); left < 50*time.Minute || left > time.Hour {
					t.Errorf("next round in %v; want about an hour (rounds.every)", left)
				}
				if line := progress(s); !strings.Contains(line, "IDLE (next round in 59m") {
					t.Errorf("headless progress line %q does not say when the next round starts", line)
				}
			}
		})
	}
}

// --stats-json says how the crawl ended: DONE when it ran dry, STOPPED when the
// duration cut it short with URLs left.
func TestStatsJSONSaysHowTheCrawlEnded(t *testing.T) {
	t.Parallel() // its own sandbox, store, ports and subprocesses
	srv := smallSite(t, 400)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"ran dry", []string{"--until-idle"}, "DONE"},
		{"cut short", []string{"--duration", "1s", "--delay", "200ms..300ms"}, "STOPPED"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			statsPath := filepath.Join(dir, "stats.json")
			args := append([]string{"crawl", "--headless", "--db", filepath.Join(dir, "c.db"), "--stats-json", statsPath,
				"--allow-private", "127.0.0.0/8", "--lanes", "4"}, c.args...)
			site := srv // 401 pages: more than a second at 4 lanes and 200 ms a page
			if c.want == "DONE" {
				// Two pages, without the default pauses and host rate: how soon it
				// runs dry is not the point.
				site = smallSite(t, 1)
				conf := filepath.Join(dir, "fast.yaml")
				if err := os.WriteFile(conf, []byte("host_rate: 0\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--config", conf, "--delay", "0s..1ms")
			}
			args = append(args, site.URL+"/")
			var out strings.Builder
			if code := Main(args, &out, &out); code != 0 {
				t.Fatalf("exit %d\n%s", code, out.String())
			}
			raw, err := os.ReadFile(statsPath)
			if err != nil {
				t.Fatal(err)
			}
			var st struct{ State string }
			if err := json.Unmarshal(raw, &st); err != nil || st.State != c.want {
				t.Fatalf("stats state %q (%v); want %q\n%s", st.State, err, c.want, raw)
			}
		})
	}
}

// Polite rates keep their figures: 0.25 pages/s is not rounded to 0.2 or 0.3.
func TestRateKeepsPoliteRates(t *testing.T) {
	for in, want := range map[float64]string{0.25: "0.25 pages/s (15/min)", 0.04: "0.04 pages/s (2/min)", 3.456: "3.46 pages/s", 42.5: "42.5 pages/s", 0: "0 pages/s"} {
		if got := pane.Rate(in); got != want {
			t.Errorf("pane.Rate(%v) = %q, want %q", in, got, want)
		}
	}
}

// The first progress lines come before the engine's rate has its window: the page
// fetched in the crawl's first second is in none of its samples, so a crawl at a
// page every three seconds would read "pages 1  0 pages/s". Until the window is full
// the line gives the pages over the time since the start; then the engine's rate.
func TestProgressRateCountsEveryPageFromTheStart(t *testing.T) {
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	s := view.Snapshot{State: view.StateRunning, StartedAt: start, At: start.Add(3 * time.Second),
		RateHistory: []float64{0, 0}, Totals: view.Totals{PagesFetched: 1}}
	if line := progress(s); !strings.Contains(line, "pages 1  0.33 pages/s (20/min)") {
		t.Errorf("3 s in, 1 page fetched: progress %q; want pages 1  0.33 pages/s (20/min)", line)
	}
	s.At, s.Totals.PagesFetched = start.Add(7*time.Second), 3
	s.RateHistory, s.PagesPerSec = []float64{0, 0, 1, 0, 1, 0}, 0.4
	if line := progress(s); !strings.Contains(line, "pages 3  0.40 pages/s (24/min)") {
		t.Errorf("7 s in, the window full: progress %q; want the engine's 0.40 pages/s (24/min)", line)
	}
	s.State, s.PagesPerSec, s.RateHistory = view.StatePaused, 0, s.RateHistory[:2]
	if line := progress(s); !strings.Contains(line, "pages 3  0 pages/s") {
		t.Errorf("paused: progress %q; want 0 pages/s, as the engine says of a paused crawl", line)
	}
}

// When most lanes wait on politeness, the progress line says so and on what, so a
// crawl at 0.3 pages/s is not taken for a hung one; while most fetch, it says
// nothing.
func TestProgressSaysPolitenessIsTheLimit(t *testing.T) {
	s := view.Snapshot{State: view.StateRunning, StartedAt: time.Now(), PagesPerSec: 0.3, Lanes: []view.Lane{
		{ID: 1, Status: view.LaneWaiting, GapWhy: "crawl-delay"},
		{ID: 2, Status: view.LaneGated, GapWhy: "crawl-delay"},
		{ID: 3, Status: view.LaneWaiting, GapWhy: "delay"},
		{ID: 4, Status: view.LaneFetching},
	}}
	line := progress(s)
	if !strings.Contains(line, "limited by politeness: 3 of 4 lanes wait (crawl-delay 2, delay 1)") || !strings.Contains(line, "0.30 pages/s (18/min)") {
		t.Errorf("progress line %q does not say politeness holds the lanes back, or rounds the rate", line)
	}
	s.Lanes[0].Status, s.Lanes[1].Status = view.LaneFetching, view.LaneFetching
	if line := progress(s); strings.Contains(line, "limited by") {
		t.Errorf("progress line %q says limited while most lanes fetch", line)
	}
}

// A headless crawl's progress line says how many pages a browser rendered, as the
// console's header does, once one was: a script-built site crawled headless said
// nothing of it. A crawl that rendered none says nothing.
func TestProgressSaysWhatWasRendered(t *testing.T) {
	s := view.Snapshot{State: view.StateRunning, Render: &view.RenderStats{Renders: 31, Failed: 2}}
	if line := progress(s); !strings.Contains(line, "rendered 31 (2 kept plain)") {
		t.Errorf("progress %q: want rendered 31 (2 kept plain)", line)
	}
	s.Render = &view.RenderStats{}
	if line := progress(s); strings.Contains(line, "rendered") {
		t.Errorf("progress %q: a crawl that rendered nothing says nothing of renders", line)
	}
}
