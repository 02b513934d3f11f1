package cli

import (
	"bytes"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/ui"
)

// steeringDemo is the demo's crawl of a fault-free sandbox (scale 50): its news and
// social sites declared, running, and the first social site's name.
func steeringDemo(t *testing.T) (*engine.Engine, *sandbox.Sandbox, string, engine.Options) {
	t.Helper()
	sb := clusterSandbox(t, 21, 24, nil)
	opts := DemoOptions(sb, filepath.Join(t.TempDir(), "demo.db"))
	social := ""
	for _, s := range opts.Sites {
		if s.Kind == engine.SiteSocial {
			social = s.Name
			break
		}
	}
	if social == "" {
		t.Skip("this sandbox seed has no social site")
	}
	eng, err := engine.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng, sb, social, opts
}

// firstSearch waits for the sandbox's first request searching q and returns when it
// started.
func firstSearch(t *testing.T, sb *sandbox.Sandbox, q string, d time.Duration) time.Time {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		for _, r := range sb.Truth().Requests() {
			if u, err := url.Parse(r.URL); err == nil && u.Query().Get("q") == q {
				return r.Start
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q was never searched within %v", q, d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The must-show of issue 18: on a running demo, :keyword add shows the keyword in
// the Sites pane, and the new keyword's first search-page fetch follows within one
// lane delay (lanes.delay_max), as the search goes to the head of its lane's queue.
func TestKeywordAddOnRunningDemo(t *testing.T) {
	eng, sb, social, opts := steeringDemo(t)
	r := lipgloss.NewRenderer(&bytes.Buffer{})
	r.SetColorProfile(termenv.Ascii)
	tm := teatest.NewTestModel(t, ui.NewModel(eng, ui.Options{Refresh: 50 * time.Millisecond}, r), teatest.WithInitialTermSize(160, 40))
	var out bytes.Buffer
	waitFor := func(what string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(out.String(), what) {
			if time.Now().After(deadline) {
				t.Fatalf("the console never showed %q; last output:\n%s", what, tail(out.String(), 3000))
			}
			time.Sleep(10 * time.Millisecond)
			out.ReadFrom(tm.Output())
		}
	}
	waitFor("Sites")
	tm.Send(keyRunes("7"))
	waitFor("KEYWORDS")
	tm.Send(keyRunes("/"))
	tm.Send(keyRunes(social))
	tm.Send(keyEnter())
	tm.Send(keyRunes(":keyword add " + social + " zeppelin"))
	asked := time.Now()
	tm.Send(keyEnter())
	first := firstSearch(t, sb, "zeppelin", 10*time.Second)
	waitFor("keywords zeppelin, ") // the selected site's line: its keywords, newest first
	late := first.Sub(asked)
	t.Logf("first search for the new keyword %v after :keyword add (one lane delay: %v..%v)", late, opts.Lanes.DelayMin, opts.Lanes.DelayMax)
	if slack := 150 * time.Millisecond; late > opts.Lanes.DelayMax+slack {
		t.Errorf("first search %v after :keyword add; want within one lane delay (%v, +%v for the command's way)", late, opts.Lanes.DelayMax, slack)
	}
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
}

// `crawlconsole ctl` steers a one-box crawl through its --operator port: a change is
// made and said; a refused one exits 1 with the reason; a bad command or a missing
// credential exits 2.
func TestCtlSteersACrawlThroughItsOperatorPort(t *testing.T) {
	eng, sb, social, opts := steeringDemo(t)
	var banner bytes.Buffer
	stop, err := operatorPort("127.0.0.1:0", opts.DB, eng, &banner, "crawl")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	m := regexp.MustCompile(`--attach (\S+) --token-file (\S+)`).FindStringSubmatch(banner.String())
	if m == nil {
		t.Fatalf("no attach line in %q", banner.String())
	}
	attach, tokenFile := m[1], m[2]
	cases := []struct {
		name     string
		args     []string
		code     int
		out, err string
	}{
		{"keyword add", []string{"keyword", "add", social, "storm", "surge"}, 0, `keyword "storm surge" added to ` + social, ""},
		{"private seed", []string{"seed", "add", "http://10.0.0.7/"}, 1, "", "loopback/private/link-local targets are blocked"},
		{"malformed seed", []string{"seed", "add", "http//x"}, 1, "", "is not a URL to crawl"},
		{"unknown site", []string{"keyword", "rm", "nosuchsite", "x"}, 1, "", `no site named "nosuchsite"`},
		{"bad command", []string{"site", "add", "blog", "http://x.test/"}, 2, "", `site kind must be "news" or "social"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runCtl(append([]string{"--attach", attach, "--token-file", tokenFile}, c.args...), &stdout, &stderr)
			if code != c.code || !strings.Contains(stdout.String(), c.out) || !strings.Contains(stderr.String(), c.err) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, stdout.String(), stderr.String(), c.code, c.out, c.err)
			}
		})
	}
	if _, err := operatorPort("0.0.0.0:0", opts.DB, eng, &banner, "crawl"); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("--operator on a non-loopback address: %v, want a refusal naming loopback", err)
	}
	var stderr bytes.Buffer
	t.Setenv(tokenEnv, "")
	if code := runCtl([]string{"--attach", attach, "budget", social, "10"}, &bytes.Buffer{}, &stderr); code != ExitUsage || !strings.Contains(stderr.String(), "no credential") {
		t.Errorf("without a token: exit %d, %q", code, stderr.String())
	}
	firstSearch(t, sb, "storm surge", 10*time.Second)
	for _, s := range eng.Snapshot().Sites.Sites {
		if s.Name == social && !strings.Contains(strings.Join(s.Keywords, ","), "storm surge") {
			t.Errorf("%s keywords %v after ctl keyword add", social, s.Keywords)
		}
	}
}

func keyRunes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

func keyEnter() tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyEnter} }
