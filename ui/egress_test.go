package ui

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/ui/fake"
)

func TestEgressPaneShowsTheRotation(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			h := newHarness(t, size[0], size[1], Options{})
			h.press("5")
			h.mustShow("[5 Egress]", "node local", "on egress-a", "rotations 37", "disabled now 3", "deferred URLs 57",
				"NAME", "KIND", "ADDRESS", "START", "Y/N", "REQ", "REF", "OK%", "STATE",
				"DISABLED HOST", "PAIR-BANNED HOST", "VPNs needed ≈ ceil(keywords × pages/keyword ÷ pages per IP)")
			tests := []struct {
				row  string
				want []string // fields of the row, in order
			}{
				// name, kind, address, start time, recently used, requests, refusals, success rate, state
				{"egress-a bind", []string{"bind:127.0.0.2", "09:24:42", "y", "1,234", "12", "99.0%", "in", "use"}},
				{"egress-b http", []string{"09:17:13", "y", "876", "3", "99.5%", "ready"}},
				{"egress-c socks5", []string{"08:55:53", "n", "402", "1", "98.8%", "cooling", "42s"}},
				{"spare-1  socks5", []string{"-", "n", "0", "0", "100.0%", "free"}},
				// the host_disable_list with time left, since and until
				{"blog-44.sandbox.test ", []string{"4.0s", "07:26:57", "09:26:57"}},
				{"social-41.sandbox.test   ", []string{"1h23m00s", "08:49:53", "10:49:53"}},
				// pair bans: egress, time left, since
				{"news-13.sandbox.test", []string{"egress-b", "7m00s", "09:03:53"}},
			}
			for _, tc := range tests {
				if row := h.rowOf(tc.row); !fieldsInOrder(row, tc.want...) {
					t.Errorf("row %q = %q, lacks %q", tc.row, row, tc.want)
				}
			}
			if size[0] >= 110 {
				h.mustShow("NODE", "FAULT", "BANS", "http://crawler:***@127.0.0.1:3128", "socks5://vpn:***@127.0.0.6:1080")
				if row := h.rowOf("egress-b "); !strings.Contains(row, "local") {
					t.Errorf("wide row lacks the node: %q", row)
				}
			}
		})
	}
}

// TestEgressSecretsNeverShow walks every pane and overlay of a crawl whose egress
// table holds passwords: none appears, only ***.
// fieldsInOrder reports whether row's blank-separated fields include want, in order.
func fieldsInOrder(row string, want ...string) bool {
	fields := strings.Fields(row)
	for _, w := range want {
		i := 0
		for i < len(fields) && fields[i] != w {
			i++
		}
		if i == len(fields) {
			return false
		}
		fields = fields[i+1:]
	}
	return true
}

func TestEgressSecretsNeverShow(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		h := newHarness(t, size[0], size[1], Options{})
		for _, keys := range [][]string{{"1"}, {"2", "enter"}, {"3"}, {"4"}, {"5"}, {"5", "G"}, {"?"}, {"esc", "r"}, {"n"}} {
			h.press(keys...)
			for _, secret := range []string{"s3cret-pass", "other-pass"} {
				if strings.Contains(h.m.View(), secret) {
					t.Fatalf("%v after %v shows a password:\n%s", size, keys, h.view())
				}
			}
		}
	}
}

func TestEgressKeys(t *testing.T) {
	t.Run("e in Lanes rotates the selected lane", func(t *testing.T) {
		h := newHarness(t, 120, 40, Options{})
		h.press("e") // lane 1 is on egress-a
		h.mustCall("RotateLane(1)")
		h.mustShow("lane 1 rotated: egress-a -> egress-b")
		if row := h.rowOf("▸"); !strings.Contains(row, " egress-b ") {
			t.Fatalf("lane 1 row after the rotation: %q", row)
		}
	})
	t.Run("x in Lanes disables the lane's host, x again enables it", func(t *testing.T) {
		h := newHarness(t, 120, 40, Options{})
		h.press("x")
		h.mustCall("SetHostDisabled(news-00.sandbox.test,true)")
		h.mustShow("host news-00.sandbox.test disabled: its URLs are deferred")
		h.press("x")
		h.mustCall("SetHostDisabled(news-00.sandbox.test,true)", "SetHostDisabled(news-00.sandbox.test,false)")
		h.mustShow("host news-00.sandbox.test enabled: its deferred URLs come back")
	})
	t.Run("e and x in Groups act on the group's lane and the selected host", func(t *testing.T) {
		h := newHarness(t, 120, 40, Options{})
		h.press("2", "down", "e") // group of lane 2 (egress-b)
		h.mustCall("RotateLane(2)")
		h.mustShow("lane 2 rotated: egress-b -> egress-a") // egress-c is cooling
		h.press("up", "enter", "down", "x")                // lane 1's first host
		h.press("down", "x")                               // its second, on the disable list already
		h.mustCall("RotateLane(2)", "SetHostDisabled(news-00.sandbox.test,true)", "SetHostDisabled(news-57.sandbox.test,false)")
	})
	t.Run("e in Egress moves every lane off the selected egress", func(t *testing.T) {
		h := newHarness(t, 120, 40, Options{})
		h.press("5", "e")
		h.mustCall("RotateLane(1)", "RotateLane(4)", "RotateLane(7)", "RotateLane(10)")
		h.mustShow("egress-a: 4 lanes moved (1->egress-b, 4->egress-b, 7->egress-b, 10->egress-b)")
		h.press("1")
		for _, l := range h.ctrl.Snapshot().Lanes {
			if l.Egress == "egress-a" {
				t.Fatalf("lane %d still on egress-a", l.ID)
			}
		}
	})
	t.Run("e in Egress on an egress without lanes", func(t *testing.T) {
		h := newHarness(t, 120, 40, Options{})
		h.press("5", "down", "down", "down", "e") // spare-1
		h.mustShow("no lane leaves from spare-1 now")
		h.mustCall()
	})
	t.Run("e in Egress on a host row", func(t *testing.T) {
		h := newHarness(t, 120, 40, Options{})
		h.press("5", "down", "down", "down", "down", "e")
		h.mustShow("e acts on an egress: select one in the table")
		h.mustCall()
	})
	t.Run("x in Egress takes a host off the disable list", func(t *testing.T) {
		h := newHarness(t, 120, 40, Options{})
		h.press("5", "down", "down", "down", "down") // blog-44, first disabled host
		if row := h.rowOf("▸"); !strings.Contains(row, "blog-44.sandbox.test") {
			t.Fatalf("selection = %q", row)
		}
		h.press("x")
		h.mustCall("SetHostDisabled(blog-44.sandbox.test,false)")
		h.mustShow("host blog-44.sandbox.test enabled", "disabled now 2")
		if strings.Contains(h.body(), "blog-44") {
			t.Fatalf("blog-44 still listed:\n%s", h.body())
		}
		if row := h.rowOf("▸"); !strings.Contains(row, "news-57.sandbox.test") {
			t.Fatalf("selection should stay in the disable list: %q", row)
		}
	})
	t.Run("x in Egress on pair bans", func(t *testing.T) {
		h := newHarness(t, 120, 40, Options{})
		h.press("5", "G") // news-13: banned on egress-b only, not disabled
		h.press("x")
		h.mustCall("SetHostDisabled(news-13.sandbox.test,true)")
		h.mustShow("disabled now 4")
		h.press("up", "x") // social-41: already disabled
		h.mustCall("SetHostDisabled(news-13.sandbox.test,true)", "SetHostDisabled(social-41.sandbox.test,false)")
	})
	t.Run("x in Egress on an egress row", func(t *testing.T) {
		h := newHarness(t, 120, 40, Options{})
		h.press("5", "x")
		h.mustShow("x acts on a host")
		h.mustCall()
	})
}

func TestEgressErrors(t *testing.T) {
	noRotation := fake.ErrNoRotation.Error()
	tests := []struct {
		name  string
		cfg   fake.Config
		setup func(h *harness)
		keys  []string
		calls []string
		show  string
	}{
		{name: "e on a direct crawl", cfg: fake.Config{Direct: true}, keys: []string{"e"},
			calls: []string{"RotateLane(1)"}, show: "could not rotate lane 1: " + noRotation},
		{name: "x on a direct crawl", cfg: fake.Config{Direct: true}, keys: []string{"x"},
			calls: []string{"SetHostDisabled(news-00.sandbox.test,true)"}, show: "could not disable host news-00.sandbox.test: " + noRotation},
		{name: "e on a lane that retired", setup: func(h *harness) { h.ctrl.RetireLane(1) }, keys: []string{"e"},
			calls: []string{"RotateLane(1)"}, show: "could not rotate lane 1: no lane 1"},
		{name: "e in Egress on a direct crawl", cfg: fake.Config{Direct: true}, keys: []string{"5", "e"},
			show: "no egress rotation: the crawl goes direct"},
		{name: "e in Egress when every lane retired", setup: func(h *harness) {
			for i := 1; i <= 12; i++ {
				h.ctrl.RetireLane(i)
			}
		}, keys: []string{"5", "e"}, calls: []string{"RotateLane(1)", "RotateLane(4)", "RotateLane(7)", "RotateLane(10)"},
			show: "could not move lanes off egress-a: no lane 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarnessWith(t, 120, 40, Options{}, tc.cfg)
			if tc.setup != nil {
				tc.setup(h)
			}
			h.press(tc.keys...)
			h.mustCall(tc.calls...)
			h.mustShow(tc.show)
		})
	}
	t.Run("Egress pane of a direct crawl", func(t *testing.T) {
		h := newHarnessWith(t, 80, 24, Options{}, fake.Config{Direct: true})
		h.press("5")
		h.mustShow("no egress rotation: the crawl goes direct from this box")
	})
}

func TestEgressCommands(t *testing.T) {
	tests := []struct {
		line    string
		cfg     fake.Config
		calls   []string
		show    []string
		errText string
	}{
		{line: "egress add http://bob:hunter2@127.0.0.1:3128", calls: []string{"AddEgress(http://bob:***@127.0.0.1:3128)"},
			show: []string{"egress e5 added (http://bob:***@127.0.0.1:3128)", "e5       http"}},
		{line: "egress add vpn3=socks5://127.0.0.9:1080", calls: []string{"AddEgress(socks5://127.0.0.9:1080)"},
			show: []string{"egress vpn3 added (vpn3=socks5://127.0.0.9:1080)", "vpn3"}},
		{line: "egress add bind:127.0.0.7", calls: []string{"AddEgress(bind:127.0.0.7)"}, show: []string{"egress e5 added (bind:127.0.0.7)"}},
		{line: "egress add egress-a=bind:127.0.0.8", calls: []string{"AddEgress(bind:127.0.0.8)"},
			show: []string{"could not add egress egress-a=bind:127.0.0.8: egress egress-a (bind:127.0.0.8): name used twice"}},
		{line: "egress add http://bob:hunter2@127.0.0.1:3128", cfg: fake.Config{Direct: true}, calls: []string{"AddEgress(http://bob:***@127.0.0.1:3128)"},
			show: []string{"could not add egress http://bob:***@127.0.0.1:3128: " + fake.ErrNoRotation.Error()}},
		{line: "egress add http://x:${file:/etc/passwd}@203.0.113.7:3128",
			errText: "egress http://x:***@203.0.113.7:3128: secret references (${env:...}, ${file:...}) are refused from a console session"},
		{line: "egress add leak=socks5://x:${env:HOME}@203.0.113.7:1080",
			errText: "egress leak (socks5://x:***@203.0.113.7:1080): secret references"},
		{line: "egress add ftp://x.test:21", errText: "egress ftp://x.test:21: unknown proxy scheme (want http or socks5)"},
		{line: "egress add http://bob:hunter2@127.0.0.1", errText: "egress http://bob:***@127.0.0.1: proxy address must be host:port"},
		{line: "egress add http://bob:hunter2", errText: "egress http://bob:***: proxy port must be a number 1-65535"},
		{line: "egress add", errText: "usage: :egress add SPEC | :egress rm NAME"},
		{line: "egress rm egress-c", calls: []string{"RemoveEgress(egress-c)"}, show: []string{"egress egress-c removed"}},
		{line: "egress rm nope", errText: `no egress "nope" (have egress-a, egress-b, egress-c, spare-1)`},
		{line: "egress rm e1", cfg: fake.Config{Direct: true}, calls: []string{"RemoveEgress(e1)"},
			show: []string{"could not remove egress e1: " + fake.ErrNoRotation.Error()}},
		{line: "rotate lane 3", calls: []string{"RotateLane(3)"}, show: []string{"lane 3 rotated: egress-c -> egress-a"}},
		{line: "rotate lane 99", errText: "no lane 99 (12 lanes open: 1, 2, 3, 4, 5, 6, 7, 8, …, 12)"},
		{line: "rotate lane x", errText: `lane must be a lane number, not "x"`},
		{line: "disable host Blog-02.sandbox.test", calls: []string{"SetHostDisabled(blog-02.sandbox.test,true)"},
			show: []string{"host blog-02.sandbox.test disabled", "disabled now 4"}},
		{line: "enable host news-57.sandbox.test", calls: []string{"SetHostDisabled(news-57.sandbox.test,false)"},
			show: []string{"host news-57.sandbox.test enabled", "disabled now 2"}},
		{line: "disable host http://x", errText: `"http://x" is not a host name`},
		// A host typed wrong is refused and nothing is sent: a disable of a host the
		// crawl does not have, an enable of one that is not disabled.
		{line: "disable host nosuch.example", show: []string{"no host nosuch.example in the crawl"}},
		{line: "enable host blog-02.sandbox.test", show: []string{"host blog-02.sandbox.test is not disabled (disabled: "}},
	}
	for _, tc := range tests {
		t.Run(tc.line, func(t *testing.T) {
			h := newHarnessWith(t, 120, 40, Options{}, tc.cfg)
			h.press("5")
			h.command(tc.line)
			if strings.Contains(h.m.View(), "hunter2") {
				t.Fatalf("the password shows:\n%s", h.view())
			}
			h.mustCall(tc.calls...)
			if tc.errText != "" {
				h.mustShow(tc.errText)
				if h.m.focus != focusPane {
					t.Fatal("a refused command closes the command line")
				}
				return
			}
			h.mustShow(tc.show...)
		})
	}
}

// TestEgressAddNeverEchoesThePassword types a spec with a password key by key: the
// input line stars it out as it is typed, the status line and errors mask it, and
// the line does not enter the history (↑ cannot bring it back).
func TestEgressAddNeverEchoesThePassword(t *testing.T) {
	const secret = "hunter2"
	h := newHarness(t, 200, 40, Options{}) // wide enough for the longest status line
	h.press(":")
	h.typeText("lanes 5")
	h.press("enter", ":")
	for _, r := range "egress add http://bob:" + secret + "@127.0.0.1:3128" {
		h.typeText(string(r))
		if strings.Contains(h.m.View(), "bob:h") {
			t.Fatalf("the password shows while typed:\n%s", h.view())
		}
	}
	h.mustShow(":egress add http://bob:*******@127.0.0.1:3128")
	h.press("left", "left", "backspace") // edit in the middle: the mask keeps the cursor right
	h.typeText("9")
	h.mustShow(":egress add http://bob:*******@127.0.0.1:39|28")
	h.press("enter")
	h.mustShow("egress e5 added (http://bob:***@127.0.0.1:3928)")
	h.press(":", "up")
	if got := h.m.cmdIn.String(); got != "lanes 5" {
		t.Fatalf("history recalls %q; the egress line must not be kept", got)
	}
	h.press("esc")

	t.Run("an engine error quoting the spec is masked", func(t *testing.T) {
		h.ctrl.FailAddEgress(func(spec string) error { return fmt.Errorf("dial %s: connection refused (password %s)", spec, secret) })
		h.command("egress add http://bob:" + secret + "@127.0.0.1:3128")
		h.mustShow("could not add egress http://bob:***@127.0.0.1:3128: dial http://bob:***@127.0.0.1:3128: connection refused (password ***)")
		if strings.Contains(h.m.View(), secret) {
			t.Fatalf("the password shows:\n%s", h.view())
		}
	})
	t.Run("a %-escaped password is masked in both forms", func(t *testing.T) {
		h.ctrl.FailAddEgress(func(string) error { return errors.New("proxy said: bad password p@ss") })
		h.command("egress add http://bob:p%40ss@127.0.0.1:3128")
		h.mustShow("proxy said: bad password ***")
		if strings.Contains(h.m.View(), "p@ss") || strings.Contains(h.m.View(), "p%40ss") {
			t.Fatalf("the password shows:\n%s", h.view())
		}
	})
	for _, c := range h.calls() {
		if strings.Contains(c, secret) || strings.Contains(c, "p@ss") {
			t.Fatalf("the engine's call log holds the password: %q", c)
		}
	}
}

// TestEgressPaneKeepsTheSelection: the cursor stays on its egress across snapshots
// (rows reorder when egresses come and go) and the list scrolls with it.
func TestEgressPaneKeepsTheSelection(t *testing.T) {
	h := newHarness(t, 80, 24, Options{})
	h.press("5", "down") // egress-b
	if _, err := h.ctrl.AddEgress("bind:127.0.0.20"); err != nil {
		t.Fatal(err)
	}
	if err := h.ctrl.RemoveEgress("egress-a"); err != nil {
		t.Fatal(err)
	}
	h.refresh()
	if row := h.rowOf("▸"); !strings.Contains(row, "egress-b") {
		t.Fatalf("selection moved off egress-b: %q", row)
	}
	for i := range 10 {
		if err := h.ctrl.SetHostDisabled(fmt.Sprintf("extra-%d.sandbox.test", i), true); err != nil {
			t.Fatal(err)
		}
	}
	h.refresh()
	h.mustNotShow("news-13.sandbox.test") // below the fold
	h.press("G")
	h.mustShow("news-13.sandbox.test", "PAIR-BANNED HOST")
	h.press("g")
	h.mustShow("NAME", "KIND")
}
