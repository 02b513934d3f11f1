package ui

import (
	"strings"
	"testing"
)

func TestCommands(t *testing.T) {
	tests := []struct {
		line      string
		wantCalls []string
		show      []string // on screen afterwards
		errText   string   // in the status line; the command line closes
	}{
		{line: "pause", wantCalls: []string{"Pause"}, show: []string{"PAUSED", "crawl paused"}},
		{line: "resume", wantCalls: []string{"Resume"}, show: []string{"RUNNING", "crawl resumed"}},
		{line: "pause host social-01.sandbox.test", wantCalls: []string{"PauseHost(social-01.sandbox.test,true)"},
			show: []string{"host social-01.sandbox.test paused", "paused hosts 1"}},
		{line: "pause host NEWS-00.Sandbox.Test", wantCalls: []string{"PauseHost(news-00.sandbox.test,true)"}},
		{line: "resume host social-01.sandbox.test", wantCalls: []string{"PauseHost(social-01.sandbox.test,false)"},
			show: []string{"host social-01.sandbox.test resumed"}},
		{line: "pause lane 3", wantCalls: []string{"PauseLane(3,true)"}, show: []string{"lane 3 paused"}},
		{line: "  resume   lane 3 ", wantCalls: []string{"PauseLane(3,false)"}, show: []string{"lane 3 resumed"}},
		{line: "lanes 8", wantCalls: []string{"SetMaxLanes(8)"}, show: []string{"lanes.max set to 8", "lanes 12/8"}},
		{line: "theme high-contrast", show: []string{"theme high-contrast"}},
		{line: "theme mono", show: []string{"theme mono"}},
		{line: "rebalance", wantCalls: []string{"PlanRebalance"}, show: []string{"Rebalance lanes over egresses"}},
		{line: "help", show: []string{"Help: keys and commands"}},
		{line: "quit", show: []string{"Quit crawlconsole?"}},

		{line: "frobnicate", errText: `unknown command "frobnicate" (try :help)`},
		{line: "pause now", errText: "usage: :pause | :pause host NAME | :pause lane N"},
		{line: "pause host", errText: "usage: :pause | :pause host NAME | :pause lane N"},
		{line: "pause host a b", errText: "usage: :pause | :pause host NAME | :pause lane N"},
		{line: "pause lane x", errText: `lane must be a lane number, not "x"`},
		{line: "pause lane -2", errText: `lane must be a lane number, not "-2"`},
		{line: "resume lane 99", errText: "no lane 99 (12 lanes open: 1, 2, 3, 4, 5, 6, 7, 8, …, 12)"},
		{line: "lanes", errText: "usage: :lanes N"},
		{line: "lanes 0", errText: `lanes: N must be a whole number >= 1, not "0"`},
		{line: "lanes many", errText: `lanes: N must be a whole number >= 1, not "many"`},
		{line: "theme neon", errText: `unknown theme "neon" (have dark, high-contrast, light, mono)`},
		{line: "rebalance now", errText: "usage: :rebalance"},
		{line: "help me", errText: "usage: :help"},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			h := newHarness(t, 120, 40, Options{})
			h.command(tc.line)
			h.mustCall(tc.wantCalls...)
			h.mustShow(tc.show...)
			if tc.errText == "" {
				if h.m.status.err {
					t.Fatalf("unexpected error %q", h.m.status.text)
				}
				return
			}
			h.mustShow(tc.errText)
			// The line closed: the next key acts on the console (p pauses the
			// crawl), it is not typed into the refused command.
			if h.m.focus != focusPane {
				t.Fatalf("the : line stayed open after the refused %q", tc.line)
			}
			h.press("p")
			h.mustCall("Pause")
			// ":" then up brings the refused line back to fix.
			h.press(":", "up")
			h.mustShow(":" + strings.Join(strings.Fields(tc.line), " "))
		})
	}
}

func TestCommandThemeChangesStyles(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	if h.m.c.Styles.Theme.Name != "dark" {
		t.Fatalf("default theme = %s", h.m.c.Styles.Theme.Name)
	}
	h.command("theme light")
	if h.m.c.Styles.Theme.Name != "light" {
		t.Fatalf("theme = %s, want light", h.m.c.Styles.Theme.Name)
	}
}

func TestUnknownThemeOptionFallsBack(t *testing.T) {
	h := newHarness(t, 120, 40, Options{Theme: "neon"})
	h.mustShow(`unknown theme "neon"; using dark`)
	if h.m.c.Styles.Theme.Name != "dark" {
		t.Fatalf("theme = %s", h.m.c.Styles.Theme.Name)
	}
}

func TestCommandCompletion(t *testing.T) {
	tests := []struct {
		typed, want string
		hint        []string
	}{
		{"pa", "pause", []string{"pause", "pause host", "pause lane"}},
		{"pause ", "pause ", []string{"pause host", "pause lane"}},
		{"pause h", "pause host ", nil},
		{"th", "theme ", nil},
		{"theme h", "theme high-contrast", nil},
		{"theme ", "theme ", []string{"dark", "high-contrast", "light", "mono"}},
		{"pause host so", "pause host social-", []string{"social-01.sandbox.test", "social-04.sandbox.test", "social-07.sandbox.test", "social-10.sandbox.test", "social-61.sandbox.test"}},
		{"reb", "rebalance", nil},
		{"q", "quit", nil},
		{"zz", "zz", nil},
		{"", "", []string{"budget", "disable host", "dns flush", "egress add", "egress rm", "enable host", "help", "keyword add",
			"keyword rm", "lanes", "pause", "pause host", "pause lane", "quit", "rebalance", "resume", "resume host", "resume lane",
			"revisit now", "rotate lane", "seed add", "site add", "site rm", "theme", "window"}},
		{"eg", "egress ", []string{"egress add", "egress rm"}},
		{"egress rm eg", "egress rm egress-", []string{"egress-a", "egress-b", "egress-c"}},
		{"egress rm sp", "egress rm spare-1", nil},
		{"dns flush gone-13", "dns flush gone-13.blog-83.sandbox.test", nil},
		{"enable host n", "enable host news-57.sandbox.test", nil},
		{"ro", "rotate lane ", nil},
		{"rev", "revisit now ", nil},
	}
	for _, tc := range tests {
		t.Run(tc.typed, func(t *testing.T) {
			h := newHarness(t, 120, 40, Options{})
			if got := h.complete(tc.typed); got != tc.want {
				t.Fatalf("completed %q to %q, want %q", tc.typed, got, tc.want)
			}
			if strings.Join(h.m.cmdHint, ",") != strings.Join(tc.hint, ",") {
				t.Fatalf("candidates = %q, want %q", h.m.cmdHint, tc.hint)
			}
			if len(tc.hint) > 0 {
				h.mustShow(tc.hint[0])
			}
		})
	}
}

func TestCommandLineEditingAndHistory(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	h.press(":")
	h.typeText("lanes 77")
	h.press("backspace")
	h.press("enter")
	h.mustCall("SetMaxLanes(7)")
	h.press(":", "up")
	if got := h.m.cmdIn.String(); got != "lanes 7" {
		t.Fatalf("history recall = %q", got)
	}
	h.press("down")
	if got := h.m.cmdIn.String(); got != "" {
		t.Fatalf("down past the newest entry = %q, want empty", got)
	}
	h.typeText("x")
	h.press("esc")
	if h.m.focus != focusPane {
		t.Fatal("esc must close the command line")
	}
	h.mustCall("SetMaxLanes(7)")
	t.Run("keys typed in the command line are text", func(t *testing.T) {
		h.press(":")
		h.typeText("pq r")
		h.mustCall("SetMaxLanes(7)")
		if h.quit || h.m.dialog != nil {
			t.Fatal("command-line text must not trigger global keys")
		}
		h.mustShow(":pq r")
		h.press("esc")
	})
	t.Run("empty line closes", func(t *testing.T) {
		h.press(":", "enter")
		if h.m.focus != focusPane {
			t.Fatal("enter on an empty command line must close it")
		}
	})
}

func TestEngineErrorsShowInTheStatusLine(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	// The fake has lanes 1..12; the snapshot is stale once the lane retired.
	h.m.snap.Lanes = append(h.m.snap.Lanes, h.m.snap.Lanes[0])
	h.m.snap.Lanes[len(h.m.snap.Lanes)-1].ID = 13
	h.command("pause lane 13")
	h.mustShow("could not pause lane 13: no such lane")
}

// A refusal longer than the terminal is wide says its reason all the same: the
// status line wraps onto the pane's last rows instead of cutting the reason off.
func TestLongRefusalIsReadWholeAt80Columns(t *testing.T) {
	h := newHarness(t, 80, 24, Options{})
	const url = "http://www.elsewhere-news.test/world/2026/12/01/a-long-article-path.html"
	h.command("revisit now " + url)
	h.mustCall("RevisitNow(" + url + ")")
	h.mustFit(80, 24)
	lines := strings.Split(h.view(), "\n")
	// Read as one text: a wrap may fall after a hyphen of the URL as well as at a space.
	said := strings.Join(strings.Fields(strings.Join(lines[len(lines)-4:len(lines)-1], "")), "")
	want := strings.Join(strings.Fields("could not revisit "+url+" now: "+url+" is not in this crawl"), "")
	if !strings.Contains(said, want) {
		t.Fatalf("the status lines say %q, want %q", said, want)
	}
	if !strings.Contains(lines[len(lines)-1], "q quit") {
		t.Fatalf("the key hints left the bottom line: %q", lines[len(lines)-1])
	}
}
