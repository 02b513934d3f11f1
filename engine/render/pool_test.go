package render

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
)

// gatedBrowser is a browser whose every start stops at a gate before the real
// one runs: the test hears each start begin (began, with its process id, which
// stays the browser's) and lets it go on (release), or never does.
type gatedBrowser struct {
	path, dir string
}

func newGatedBrowser(t *testing.T) *gatedBrowser {
	t.Helper()
	real, err := Find("")
	if err != nil {
		t.Skip("render: no chromium-headless-shell; apt-get install chromium-headless-shell")
	}
	dir := t.TempDir()
	for _, f := range []string{"began", "go"} {
		if err := syscall.Mkfifo(filepath.Join(dir, f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Opening a FIFO waits for the other end: the script waits for the test to
	// hear it began, then for the test's word to go on.
	// Its pid goes to a plain file first too: a start ended before anyone read the
	// FIFO still leaves it (said).
	script := fmt.Sprintf("#!/bin/sh\necho $$ > '%[1]s/pid'\necho $$ > '%[1]s/began'\nread go < '%[1]s/go'\nexec '%[2]s' \"$@\"\n", dir, real)
	g := &gatedBrowser{path: filepath.Join(dir, "browser"), dir: dir}
	if err := os.WriteFile(g.path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return g
}

// gateWait bounds the test's waits on the browser's gate: a start that never
// comes is a failure, not a hang.
const gateWait = 2 * time.Minute

// began waits for a start to reach the gate and returns its process id.
func (g *gatedBrowser) began(t *testing.T) int {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		b, _ := os.ReadFile(filepath.Join(g.dir, "began"))
		got <- strings.TrimSpace(string(b))
	}()
	select {
	case s := <-got:
		pid, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("the gated browser said %q, not its pid", s)
		}
		return pid
	case <-time.After(gateWait):
		t.Fatalf("no browser start began in %v", gateWait)
		return 0
	}
}

// said returns the pid the last start wrote to its plain file, if it ran that far.
func (g *gatedBrowser) said() (int, bool) {
	b, err := os.ReadFile(filepath.Join(g.dir, "pid"))
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid, err == nil
}

// release lets the start waiting at the gate run the real browser.
func (g *gatedBrowser) release(t *testing.T) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- os.WriteFile(filepath.Join(g.dir, "go"), []byte("go\n"), 0) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(gateWait):
		t.Fatalf("the browser start did not wait at its gate for %v", gateWait)
	}
}

// runningScript lists the processes whose command line names path (a script run by
// its interpreter: "/bin/sh path args"). os/exec's Start returns once the
// child has exec'd, so a process the pool started shows here until it is gone.
func runningScript(path string) []int {
	var pids []int
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err == nil && slices.Contains(strings.Split(string(b), "\x00"), path) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// alive says whether process pid still exists (a zombie counts: not reaped).
func alive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}

// renderAside runs a render in its own goroutine; its error comes on the channel.
func renderAside(p *Pool, j Job) <-chan error {
	errc := make(chan error, 1)
	go func() {
		_, err := p.Render(context.Background(), j)
		errc <- err
	}()
	return errc
}

func wait(t *testing.T, errc <-chan error, limit time.Duration, what string) error {
	t.Helper()
	select {
	case err := <-errc:
		return err
	case <-time.After(limit):
		t.Fatalf("%s: not done in %v", what, limit)
		return nil
	}
}

// Close during the browser's start ends the start and returns at once: the
// render waiting for the browser keeps its page as fetched (ErrClosed), and no
// browser process is left. Meanwhile Stats says the browser is starting.
func TestPoolCloseEndsABrowsersStart(t *testing.T) {
	t.Parallel() // its own gated browser and server
	ts := newTestServer(t)
	g := newGatedBrowser(t)
	var logs logLines
	p := testPool(t, Config{Browser: g.path, StartTimeout: time.Minute, Logf: logs.add})
	errc := renderAside(p, ts.job("/", spaShell, 200))
	pid := g.began(t) // never released: the start lasts until something ends it
	if st := p.Stats(); !st.Starting || st.Running || st.PSSMB != 0 {
		t.Errorf("stats during the start: %+v; want Starting, not Running, no memory", st)
	}
	p.Close()
	// Close waits stopWait (15 s) for a start it told to end, then says it did not:
	// a start that ended when told leaves the log empty, however slow the box.
	if got := logs.with(""); len(got) > 0 {
		t.Errorf("Close during the browser's start logged %q; want the start ended at once, within Close's wait", got)
	}
	if alive(pid) {
		t.Errorf("the browser being started (pid %d) outlived Close", pid)
	}
	if err := wait(t, errc, gateWait, "the render waiting for the start"); !errors.Is(err, ErrClosed) {
		t.Errorf("the render waiting for the start: %v; want ErrClosed", err)
	}
	if st := p.Stats(); st.Starting || st.Running {
		t.Errorf("stats after Close: %+v; want neither Starting nor Running", st)
	}
}

// The browser's start has a limit the operator sets (render.start_timeout): a
// browser that does not start in it is killed, and the render fails with an
// error that names the setting (chromedp has none: it waits for the browser's
// first answer as long as it takes).
func TestPoolBrowserStartHasALimit(t *testing.T) {
	t.Parallel() // its own gated browser and server
	ts := newTestServer(t)
	g := newGatedBrowser(t)
	p := testPool(t, Config{Browser: g.path, StartTimeout: 500 * time.Millisecond})
	// Nobody reads the gate's FIFO nor releases it: the start waits there (or
	// before, on a loaded box) until its limit ends it. A reader here waited on
	// a pid that a start killed before its script wrote it never sends.
	// The error names the limit that ended the start: its 500 ms, not a wait of
	// the render's own (its time cap) or of the test's.
	_, err := p.Render(t.Context(), ts.job("/", spaShell, 200))
	if err == nil || !strings.Contains(err.Error(), "did not start in 500ms (render.start_timeout") {
		t.Fatalf("render with a browser that never starts: %v; want an error saying it did not start in 500ms (render.start_timeout)", err)
	}
	// The process is gone: the pid it wrote (a zombie counts), and any process
	// still running the gated script (one that had not written its pid yet).
	if pid, ok := g.said(); ok && alive(pid) {
		t.Errorf("the browser that did not start in time (pid %d) still runs", pid)
	}
	if pids := runningScript(g.path); len(pids) > 0 {
		t.Errorf("the browser that did not start in time still runs its script: pids %v", pids)
	}
	if st := p.Stats(); st.Starting || st.Running {
		t.Errorf("stats after the failed start: %+v; want neither Starting nor Running", st)
	}
	t.Log(err)
}

// During a restart Stats says what is true: the old browser gone, the new one
// starting with no process nor memory to read, then running; the new browser
// starts only once the old one is gone.
func TestPoolStatsDuringARestart(t *testing.T) {
	t.Parallel() // its own gated browser and server; it mostly waits on the browser's starts
	ts := newTestServer(t)
	g := newGatedBrowser(t)
	p := testPool(t, Config{Browser: g.path, RestartAfter: 1, Timeout: time.Minute})
	errc := renderAside(p, ts.job("/", spaShell, 200))
	first := g.began(t)
	g.release(t)
	if err := wait(t, errc, gateWait, "the first render"); err != nil {
		t.Fatal(err)
	}
	// The console reads the figures while the browser runs.
	if st := p.Stats(); st.Renders != 1 || st.Starting {
		t.Fatalf("stats after the first render: %+v", st)
	}
	// One render served: the idle browser restarts, and the next render starts
	// it, held at the gate.
	errc = renderAside(p, ts.job("/", spaShell, 200))
	g.began(t)
	if alive(first) {
		t.Errorf("the second browser starts while the first (pid %d) still runs", first)
	}
	st := p.Stats()
	if !st.Starting || st.Running || st.PSSMB != 0 || st.Contexts != 0 || st.Sessions != 0 {
		t.Errorf("stats during the restart: %+v; want Starting, not Running, no memory, no contexts", st)
	}
	if !strings.Contains(st.String(), "starting") {
		t.Errorf("the console's line during the restart: %q; want it to say starting", st)
	}
	g.release(t)
	if err := wait(t, errc, gateWait, "the render after the restart"); err != nil {
		t.Fatal(err)
	}
	st = p.Stats()
	if st.Restarts != 1 || st.Renders != 2 || st.Starting {
		t.Errorf("stats after the restart: %+v; want 1 restart, 2 renders, not Starting", st)
	}
}

// A page being opened does not hold the pool: while one session's new page is
// still in its first setup calls, another session renders in its open page, and
// Close returns at once, the opening render ending with ErrClosed.
func TestPoolOpensAPageAside(t *testing.T) {
	// Its own browser and server: the page being opened waits for the browser
	// to end, which Close does to the pool's own browser only.
	t.Parallel()
	ts := newTestServer(t)
	var logs logLines
	p := testPool(t, Config{Contexts: 2, Timeout: time.Minute, Logf: logs.add})
	entered, release := make(chan struct{}), make(chan struct{})
	p.openTab = func(b context.Context, bc cdp.BrowserContextID, k tabKey) (*tab, error) {
		if k.egress == "slow" {
			close(entered)
			select {
			case <-release:
			case <-b.Done():
				return nil, b.Err()
			}
		}
		return newTab(b, bc, k)
	}
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	page := ts.job("/", spaShell, 200)
	if _, err := p.Render(t.Context(), page); err != nil {
		t.Fatal(err) // the browser's start and the session's page
	}
	slow := page
	slow.Egress = "slow"
	slowErr := renderAside(p, slow)
	select {
	case <-entered:
	case err := <-slowErr:
		t.Fatalf("the slow session's render ended before opening its page: %v", err)
	}
	done := renderAside(p, page)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(gateWait):
		close(release)
		t.Fatal("a render in an open page waited for another session's page to open")
	}
	// The pool measures its own browser's memory too (Config.MemoryMB judges it).
	if st := p.Stats(); !st.Running || st.Contexts != 1 || st.Renders != 2 || st.PSSMB == 0 {
		t.Errorf("stats while a page opens: %+v; want Running, 1 context open, 2 renders, a PSS figure", st)
	}
	closed := make(chan struct{})
	go func() {
		p.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(gateWait):
		close(release)
		t.Fatal("Close waited for a page being opened")
	}
	// Close's own waits (stopWait) say so when they run out: "at once" is an empty
	// log, not a time the box's load decides.
	if got := logs.with(""); len(got) > 0 {
		t.Errorf("Close with a page being opened logged %q; want it to return at once", got)
	}
	if err := wait(t, slowErr, gateWait, "the render whose page was opening"); !errors.Is(err, ErrClosed) {
		t.Errorf("the render whose page was opening: %v; want ErrClosed", err)
	}
}
