package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/enginetest/testcpu"
)

// syncBuffer is a goroutine-safe bytes.Buffer for stderr.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startCommand runs RunCommand with args until ctx ends and returns the first line
// it prints (its JSON line), its stderr and the channel its exit code comes on. It
// fails t if the command exits before that line or prints none within 10 s.
func startCommand(t *testing.T, ctx context.Context, args ...string) (line string, stderr *syncBuffer, code <-chan int) {
	t.Helper()
	outR, outW := io.Pipe()
	stderr = new(syncBuffer)
	exit := make(chan int, 1)
	go func() {
		exit <- RunCommand(ctx, args, outW, stderr)
		outW.Close()
	}()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 16<<20)
		if sc.Scan() {
			lines <- sc.Text()
		}
		io.Copy(io.Discard, outR) //nolint:errcheck // drain
	}()
	select {
	case line = <-lines:
	case c := <-exit:
		t.Fatalf("exit %d before the JSON line; stderr: %s", c, stderr.String())
	case <-time.After(sbPatience):
		t.Fatalf("no JSON line after %v; stderr: %s", sbPatience, stderr.String())
	}
	return line, stderr, exit
}

// waitExit fails t unless the command, its context cancelled, exits 0 (sbPatience: a guard).
func waitExit(t *testing.T, code <-chan int, stderr *syncBuffer) {
	t.Helper()
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("exit %d after cancel; stderr: %s", c, stderr.String())
		}
	case <-time.After(sbPatience):
		t.Fatalf("RunCommand did not return %v after cancel", sbPatience)
	}
}

func TestRunCommandPrintsInfoServesAndExitsCleanly(t *testing.T) {
	truthFile := filepath.Join(t.TempDir(), "truth.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The start's work, the process's CPU time (no other test runs beside this
	// one), which a loaded box does not stretch as it does the wall's.
	cpu := testcpu.Process()
	line, stderr, code := startCommand(t, ctx, "--seed", "1", "--truth", truthFile, "--dns-latency", "0s..1ms")
	if cpu = testcpu.Process() - cpu; cpu > 2*time.Second {
		t.Errorf("JSON line after %v of CPU, want within 2 s", cpu)
	}
	var info Info
	if err := json.Unmarshal([]byte(line), &info); err != nil {
		t.Fatalf("first line is not the Info JSON: %v\n%s", err, line)
	}
	var raw map[string]any
	json.Unmarshal([]byte(line), &raw) //nolint:errcheck // just decoded above
	for _, k := range []string{"http", "dns", "truth", "port", "scale", "seed", "sites"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("JSON line lacks %q", k)
		}
	}
	if info.Seed != 1 || len(info.Sites) == 0 || info.Port == 0 || !strings.HasPrefix(info.HTTP, "127.0.0.1:") {
		t.Fatalf("info: %+v", info)
	}
	// What curl --resolve does: connect to the HTTP address, ask for the entry URL.
	entry := info.Sites[0].Entry
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "tcp", info.HTTP)
	}}
	resp, err := (&http.Client{Transport: tr}).Get(entry)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), info.Sites[0].Name) {
		t.Fatalf("entry %s: status %d", entry, resp.StatusCode)
	}
	tr.CloseIdleConnections()

	cancel()
	waitExit(t, code, stderr)
	if _, err := net.DialTimeout("tcp", info.HTTP, time.Second); err == nil {
		t.Error("HTTP port still open after shutdown")
	}
	data, err := os.ReadFile(truthFile)
	if err != nil {
		t.Fatal(err)
	}
	var d TruthDump
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("--truth file: %v", err)
	}
	if len(d.Requests) != 1 || d.Requests[0].URL != entry || d.Requests[0].Status != 200 {
		t.Fatalf("--truth requests: %+v", d.Requests)
	}
}

func TestRunCommandBadInput(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string // substrings of stderr (stdout for --help)
	}{
		{"help", []string{"--help"}, 0, []string{"Usage: crawlconsole sandbox", "--seed", "--hosts", "--truth", "--scale"}},
		{"hosts too small", []string{"--hosts", "1"}, 2, []string{"--hosts", "between 2 and"}},
		{"hosts not a number", []string{"--hosts", "many"}, 2, []string{"--hosts", "integer"}},
		{"scale zero", []string{"--scale", "0"}, 2, []string{"--scale", "> 0"}},
		{"faults out of range", []string{"--faults", "2"}, 2, []string{"--faults", "between 0 and 1"}},
		{"antibot value", []string{"--antibot", "maybe"}, 2, []string{"--antibot", "on or off"}},
		{"non-loopback", []string{"--http", "0.0.0.0:0"}, 2, []string{"--http", "loopback"}},
		{"bad latency", []string{"--dns-latency", "fast"}, 2, []string{"--dns-latency", "MIN..MAX"}},
		{"unknown flag", []string{"--seeds"}, 2, []string{"-seeds: did you mean --seed?", `Run "crawlconsole sandbox --help" for its flags.`}},
		{"stray argument", []string{"now"}, 2, []string{"unexpected argument"}},
		{"truth in a missing dir", []string{"--truth", filepath.Join(t.TempDir(), "no", "such", "f.json")}, 2, []string{"--truth"}},
		{"port in use", []string{"--http", busy.Addr().String()}, 1, []string{"--http", busy.Addr().String(), "already in use"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var stdout, stderr bytes.Buffer
			code := RunCommand(ctx, tc.args, &stdout, &stderr)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, stderr.String())
			}
			out := stderr.String()
			if tc.code == 0 {
				out = stdout.String()
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestRunCommandFailedStartLeavesNoTruthFile(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	path := filepath.Join(t.TempDir(), "truth.json")
	var stdout, stderr bytes.Buffer
	if code := RunCommand(context.Background(), []string{"--dns", busy.Addr().String(), "--truth", path}, &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1; stderr: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "--dns") {
		t.Errorf("message does not name --dns: %s", stderr.String())
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("truth file left behind: %v", err)
	}
}

// --real-dates is the demo's dating, for a sandbox run beside a crawl: off by
// default (web time), on with the flag.
func TestRunCommandRealDatesFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{{nil, false}, {[]string{"--real-dates"}, true}} {
		cfg, _, err := parseFlags(tc.args)
		if err != nil || cfg.RealDates != tc.want {
			t.Errorf("parseFlags(%q): RealDates %v, %v; want %v", tc.args, cfg.RealDates, err, tc.want)
		}
	}
}
