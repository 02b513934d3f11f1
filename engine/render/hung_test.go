package render

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
)

// logLines keeps what a pool logged (Config.Logf).
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

// with returns the lines that contain s.
func (l *logLines) with(s string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, x := range l.lines {
		if strings.Contains(x, s) {
			out = append(out, x)
		}
	}
	return out
}

// A browser that stops answering holds a render no longer than the pool's wait
// for its answers: a new session's browser context, or a new page's setup, asked
// of a browser that never answers fails within that wait, the browser is killed,
// counted (Hung) and logged, and the next render starts another browser.
func TestPoolKillsABrowserThatStopsAnswering(t *testing.T) {
	t.Parallel() // its own browser and server; it mostly waits for the browser's answers to time out
	ts := newTestServer(t)
	var logs logLines
	p := testPool(t, Config{Timeout: time.Minute, Logf: logs.add})
	// The pages of egress "silent" never get their setup answered: the
	// browser is alive, but silent on them.
	p.openTab = func(b context.Context, bc cdp.BrowserContextID, k tabKey) (*tab, error) {
		if k.egress == "silent" {
			<-b.Done()
			return nil, b.Err()
		}
		return newTab(b, bc, k)
	}
	// The wait is short only while the browser is not to answer (it never does:
	// any wait shows it): a loaded box may take seconds to answer the others.
	const short, long = 250 * time.Millisecond, time.Minute
	page := ts.job("/", `<html><body>warm</body></html>`, 200)
	if _, err := p.Render(t.Context(), page); err != nil {
		t.Fatal(err)
	}

	// A browser whose processes stop (SIGSTOP) answers no new session's
	// browser context.
	pid := p.pid()
	var tree []int
	for _, pr := range processesOf(pid) {
		tree = append(tree, pr.pid)
		syscall.Kill(pr.pid, syscall.SIGSTOP)
	}
	t.Cleanup(func() {
		for _, q := range tree {
			syscall.Kill(q, syscall.SIGCONT)
		}
	})
	other := page
	other.Egress = "another"
	p.answerWait = short
	err := wait(t, renderAside(p, other), gateWait, "a render asking a stopped browser for a session's browser context")
	p.answerWait = long
	if err == nil || !strings.Contains(err.Error(), "did not answer") {
		t.Fatalf("render asking a stopped browser for a browser context: %v; want an error saying the browser did not answer", err)
	}
	if st := p.Stats(); st.Hung != 1 {
		t.Errorf("stats after a session's browser context went unanswered: %+v; want 1 hung browser", st)
	}
	if _, err := p.Render(t.Context(), other); err != nil {
		t.Fatalf("the render after the stopped browser: %v", err)
	}
	for _, q := range tree {
		if running(q) {
			t.Errorf("a process of the browser that stopped answering (pid %d of %v) still runs", q, tree)
		}
	}

	// The browser started after it is alive, but silent on a new page's setup.
	// That it is killed is what this part judges: the render after a killed
	// browser, which starts another, is the part above's.
	silent := page
	silent.Egress = "silent"
	p.answerWait = short
	err = wait(t, renderAside(p, silent), gateWait, "a render whose page's setup the browser never answers")
	p.answerWait = long
	if err == nil || !strings.Contains(err.Error(), "did not answer") {
		t.Fatalf("render whose page's setup is never answered: %v; want an error saying the browser did not answer", err)
	}
	st := p.Stats()
	if st.Hung != 2 || st.Restarts != 1 || st.Running {
		t.Errorf("stats: %+v; want 2 hung browsers, 1 restart, the silent browser no longer running", st)
	}
	if got := logs.with("did not answer"); len(got) != 2 || !strings.Contains(got[0], fmt.Sprint(pid)) || !strings.Contains(got[0], "): killed;") {
		t.Errorf("log lines on the hung browsers: %q; want 2, the first naming pid %d and saying it was killed", got, pid)
	}
}

// running says whether process pid exists and is no zombie (an orphan's zombie
// waits for init, which need not reap it in a container).
func running(pid int) bool {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(st, ')')
	return i < 0 || !bytes.HasPrefix(bytes.TrimSpace(st[i+1:]), []byte("Z"))
}

// waitEnded waits until every one of procs has ended (gone, or a zombie), failing
// the test after gateWait.
func waitEnded(t *testing.T, procs []process, what string) {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	limit := time.After(gateWait)
	for {
		var left []int
		for _, pr := range procs {
			if !pr.gone() {
				left = append(left, pr.pid)
			}
		}
		if len(left) == 0 {
			return
		}
		select {
		case <-tick.C:
		case <-limit:
			t.Fatalf("%s: pids %v of %v still run %v later", what, left, procs, gateWait)
		}
	}
}

// standInBrowser gives p, as its running browser, a process of the test's own
// with children (a shell and two sleeps, as the browser's wrapper script and its
// children): Close's kill and its checks of a pid are about processes, and need
// no page rendered, nor a real browser's start and stop (seconds of CPU). It
// returns the browser and its processes.
func standInBrowser(t *testing.T, p *Pool) (*browserRun, []process) {
	t.Helper()
	cmd := exec.Command("sh", "-c", "sleep 600 & sleep 600 & wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() {
		for _, pr := range processesOf(pid) {
			pr.kill()
		}
		cmd.Process.Kill()
		cmd.Wait()
	})
	// The shell forks its children after Start returned.
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	limit := time.After(gateWait)
	procs := processesOf(pid)
	for len(procs) < 3 {
		select {
		case <-tick.C:
		case <-limit:
			t.Fatalf("the stand-in browser (pid %d) has processes %v, not a shell and two children, after %v", pid, procs, gateWait)
		}
		procs = processesOf(pid)
	}
	_, start, _ := procStat(pid)
	ctx, cancel := context.WithCancel(context.Background())
	b := &browserRun{ctx: ctx, pid: pid, start: start, stop: func() {
		// As a real stop: the process killed and reaped; its children are left.
		cancel()
		cmd.Process.Kill()
		cmd.Wait()
	}}
	p.mu.Lock()
	p.br, p.started = b, true
	p.mu.Unlock()
	return b, procs
}

// Close returns within its bound when a browser's stop does not end: it kills the
// browser's processes, and the log says so.
func TestPoolCloseKillsABrowserThatDoesNotStop(t *testing.T) {
	t.Parallel() // a pool of its own, with a stand-in browser
	var logs logLines
	p := newPool(Config{Timeout: time.Minute, Logf: logs.add}.withDefaults(), "")
	t.Cleanup(p.Close)
	p.stopWait = time.Second
	b, procs := standInBrowser(t, p)
	p.mu.Lock()
	stop := b.stop
	// A stop that waits for the browser to go by itself, as one waiting for an
	// answer the browser never gives. It waits for the stats below too: Close's
	// kill after stopWait would end the stop, and a slow box reads them after it.
	stopping, statsRead := make(chan struct{}), make(chan struct{})
	b.stop = func() {
		close(stopping)
		<-statsRead
		for running(b.pid) {
			time.Sleep(10 * time.Millisecond)
		}
		stop()
	}
	p.mu.Unlock()
	closed := make(chan struct{})
	go func() {
		p.Close()
		close(closed)
	}()
	<-stopping
	// Meanwhile the console says the browser is stopping, not idle.
	if st := p.Stats(); !st.Stopping || st.Running || !strings.Contains(st.String(), "stopping") {
		t.Errorf("stats while the browser stops: %+v (%q); want Stopping, not Running", st, st)
	}
	close(statsRead)
	select {
	case <-closed:
	case <-time.After(gateWait):
		t.Fatalf("Close did not return in %v: it waits for a stop that never ends", gateWait)
	}
	// Close returns once it killed them, not once the kernel has ended them all (a
	// loaded box takes a while to end a killed process): they are waited for.
	// Nothing else kills them: the stop waits for the browser to go.
	waitEnded(t, procs, "the browser's processes Close killed")
	if got := logs.with("did not stop"); len(got) != 1 || !strings.Contains(got[0], fmt.Sprint(b.pid)) || !strings.Contains(got[0], "killed") {
		t.Errorf("log lines on the stop: %q; want one naming pid %d and saying it was killed", got, b.pid)
	}
}

// Close's kill of a browser that does not stop leaves alone a process that was
// given the browser's pid once the browser was gone: the pid's start time is not
// the one read at the browser's launch. The log says the browser was not killed.
func TestPoolCloseKillsNoProcessThatTookTheBrowsersPid(t *testing.T) {
	t.Parallel() // a pool of its own, with a stand-in browser
	var logs logLines
	p := newPool(Config{Timeout: time.Minute, Logf: logs.add}.withDefaults(), "")
	t.Cleanup(p.Close)
	// Its stop never ends: Close's two waits run out whatever their length.
	p.stopWait = 200 * time.Millisecond
	standInBrowser(t, p)
	// Another process, standing for the one the kernel gives the browser's pid
	// to once the browser is gone.
	other := exec.Command("sleep", "600")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		other.Process.Kill()
		other.Wait()
	})
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) }) // before the pool's Close: cleanups run last first
	p.mu.Lock()
	b := p.br
	browser := b.pid
	stop := b.stop
	// A stop that does not end, during which the browser's pid becomes another
	// process's: its processes were read as the stop began (the browser's), and
	// the browser goes.
	swapped := make(chan struct{})
	b.stop = func() {
		p.mu.Lock()
		b.pid = other.Process.Pid
		p.mu.Unlock()
		stop()
		close(swapped)
		<-hold
	}
	// The browser is retired (as a restart does) before Close, so that Close's
	// kill comes once the pid changed hands, however slow the box.
	p.retireLocked()
	p.mu.Unlock()
	<-swapped
	p.Close()
	if !running(other.Process.Pid) {
		t.Errorf("Close killed pid %d, which the browser (pid %d) had left and another process took", other.Process.Pid, browser)
	}
	if got := logs.with("did not stop"); len(got) != 1 || !strings.Contains(got[0], "not killed") || !strings.Contains(got[0], "another process") {
		t.Errorf("log lines on the stop: %q; want one saying the browser was not killed, its pid another process's", got)
	}
}
