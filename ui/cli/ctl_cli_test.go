package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// operatorLineRE is the line `--operator` prints: where ctl attaches, and the
// credential's file.
var operatorLineRE = regexp.MustCompile(`crawlconsole ctl --attach (\S+) --token-file (\S+)`)

// `demo --workers N --operator ADDR` serves the operator port on its master, as
// `demo --operator` does on one box: the same printed ctl line, the credential in
// DB.token, and ctl and console --attach reach the distributed crawl through it.
func TestDemoWithWorkersServesTheOperatorPort(t *testing.T) {
	db := filepath.Join(t.TempDir(), "dw.db")
	errb := &syncBuffer{}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan int, 1)
	go func() {
		done <- runDemo(ctx, []string{"--headless", "--duration", "60s", "--hosts", "8", "--scale", "50", "--db", db,
			"--workers", "2", "--operator", "127.0.0.1:0", "--metrics", "127.0.0.1:0"}, io.Discard, errb)
	}()
	// The metrics line is printed once the crawl runs, after the operator port is up.
	metricsAddr(t, errb)
	m := operatorLineRE.FindStringSubmatch(errb.String())
	if m == nil {
		stop()
		t.Fatalf("demo --workers 2 --operator printed no ctl line (exit %d):\n%s", <-done, errb.String())
	}
	url, tokenFile := m[1], m[2]
	if tokenFile != db+".token" {
		t.Errorf("token file %s, want %s (DB.token, as one box keeps it)", tokenFile, db+".token")
	}
	if fi, err := os.Stat(tokenFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
	var stdout, stderr bytes.Buffer
	if code := runCtl([]string{"--attach", url, "--token-file", tokenFile, "budget", "host", "www.example.test", "40"}, &stdout, &stderr); code != 0 ||
		!strings.Contains(stdout.String(), "budget of host www.example.test: 40 pages per round") {
		t.Errorf("ctl budget on the distributed demo: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	stderr.Reset()
	if code := runCtl([]string{"--attach", url, "--token-file", tokenFile, "keyword", "rm", "nosuchsite", "x"}, io.Discard, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), `no site named "nosuchsite"`) {
		t.Errorf("ctl refused on the distributed demo: exit %d, stderr %q; want 1 with the reason", code, stderr.String())
	}
	stop()
	if code := <-done; code != 0 {
		t.Fatalf("demo exit %d: %s", code, errb.String())
	}
}
