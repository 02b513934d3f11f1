package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
	"github.com/crawlconsole/crawlconsole/ui"
)

// TestSecretsNeverShown crawls the sandbox through password-protected proxies (one
// of which refuses the password) with a known password, then looks for it in
// everything an operator or a log reader can see: the console's panes, the event
// log, the stats object, the summary, the store's stats and events, the database
// file, and the errors of bad egress specs. It must appear nowhere (M3).
func TestSecretsNeverShown(t *testing.T) {
	t.Parallel() // its own sandbox, store, ports and subprocesses
	const pw = "Kn0wn-pa55word-zz91"
	cfg := sandbox.DefaultConfig()
	cfg.Seed, cfg.Hosts, cfg.Scale = 5, 6, 100
	cfg.Faults.Shares = nil
	sb, err := sandbox.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	px, err := sandbox.StartProxies(sandbox.ProxyConfig{Resolve: sandboxResolve, Proxies: []sandbox.ProxySetup{
		{Kind: sandbox.ProxyHTTP, User: "vpn1", Password: pw},
		{Kind: sandbox.ProxySOCKS5, User: "vpn2", Password: pw},
		{Kind: sandbox.ProxyHTTP, User: "vpn3", Password: pw, Fault: sandbox.ProxyAuthRefused},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	specs := px.Specs()
	if !strings.Contains(strings.Join(specs, " "), pw) {
		t.Fatal("the proxies' specs should carry the password (else this test proves nothing)")
	}

	var seen []string // everything visible, to search at the end
	for _, bad := range []string{"http://vpn:" + pw + "@", "socks5://vpn:" + pw + "@host", "ftp://vpn:" + pw + "@h:1"} {
		o := config.DefaultOptions()
		o.DB = filepath.Join(t.TempDir(), "bad.db")
		o.Egress = []string{bad}
		if _, err := engine.New(o); err == nil {
			t.Fatalf("egress %q should be refused", strings.ReplaceAll(bad, pw, "***"))
		} else {
			seen = append(seen, err.Error())
		}
	}

	db := filepath.Join(t.TempDir(), "crawl.db")
	o := DemoOptions(sb, db)
	o.Egress = specs
	o.Rotation.PerNode = 0
	e, err := engine.New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-e.Done():
	case <-time.After(enginetest.Patience):
		t.Fatal("crawl through the proxies did not finish")
	}

	// Every pane of the console, at two sizes.
	m := ui.NewModel(e, ui.Options{Detached: true}, nil)
	m, _ = m.Update(tea.WindowSizeMsg{Width: 160, Height: 50})
	for i := 0; i < 8; i++ {
		m, _ = m.Update(ui.SnapshotMsg{Snapshot: e.Snapshot()})
		seen = append(seen, m.View())
		m, _ = m.Update(tea.KeyMsg{Type: tea.KeyTab})
	}
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("?")})
	seen = append(seen, m.View())
	for _, ev := range e.EventsSince(0, 0) {
		seen = append(seen, ev.Msg)
	}
	snap, _ := json.Marshal(e.Snapshot())
	seen = append(seen, string(snap))

	e.Close()
	st := e.Stats()
	if st.Egress == nil || st.PagesStored == 0 {
		t.Fatalf("crawl through the proxies stored nothing: %+v", st)
	}
	statsFile := filepath.Join(t.TempDir(), "stats.json")
	if err := writeStats(statsFile, st, nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(statsFile)
	seen = append(seen, string(b), summary(st))

	s, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ss, _ := s.Stats()
	var txt strings.Builder
	ss.WriteText(&txt)
	js, _ := json.Marshal(ss)
	seen = append(seen, txt.String(), string(js))
	evs, _ := s.RecentEvents(100000)
	for _, ev := range evs {
		seen = append(seen, ev.Msg)
	}
	s.Close()
	for _, f := range []string{db, db + "-wal"} {
		if raw, err := os.ReadFile(f); err == nil {
			seen = append(seen, string(raw))
		}
	}

	refusedAuth := false
	for i, text := range seen {
		if strings.Contains(text, pw) {
			at := strings.Index(text, pw)
			t.Fatalf("the password appears in output %d: ...%s...", i, strings.ReplaceAll(text[max(0, at-60):at], "\n", " "))
		}
		if strings.Contains(text, "e3") && strings.Contains(strings.ToLower(text), "proxy") {
			refusedAuth = true
		}
	}
	if !refusedAuth {
		t.Fatalf("the proxy that refuses the password should show up as an error naming egress e3 (checked %d outputs)", len(seen))
	}
	t.Logf("password absent from %d outputs (%d pages stored)", len(seen), st.PagesStored)
}
