package render

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// pssSampler sums the proportional set size (Linux smaps_rollup) of a browser's
// process tree. Summing RSS would count Chromium's shared pages once per process
// (twice the truth); PSS splits them. Sampled at most once a second: a walk of
// /proc costs a few ms.
type pssSampler struct {
	mu   sync.Mutex
	at   time.Time
	pid  int
	last int
}

func (s *pssSampler) mb(pid int) int {
	if pid == 0 {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if pid == s.pid && time.Since(s.at) < time.Second {
		return s.last
	}
	s.pid, s.at, s.last = pid, time.Now(), treePSS(pid)/1024
	return s.last
}

// treePSS is the PSS in kB of pid and its descendants.
func treePSS(root int) int {
	total := 0
	for _, pr := range processesOf(root) {
		total += pss(pr.pid)
	}
	return total
}

// process is one process, told from a later one given the same id by its start
// time.
type process struct {
	pid   int
	start string // clock ticks after boot (/proc/PID/stat)
}

// kill kills the process if it is still the one read; false when it did not.
func (pr process) kill() bool {
	if _, start, ok := procStat(pr.pid); ok && start == pr.start {
		return syscall.Kill(pr.pid, syscall.SIGKILL) == nil
	}
	return false
}

// gone says whether the process ended: no longer there, its pid another
// process's, or a zombie (an orphan's zombie waits for init, which need not reap
// it in a container).
func (pr process) gone() bool {
	f := statFields(pr.pid)
	return len(f) < 20 || string(f[19]) != pr.start || string(f[0]) == "Z"
}

// waitGone waits until every one of procs is gone: at most limit, then it kills
// those left and waits for them at most limit again.
func waitGone(procs []process, limit time.Duration) {
	left := func() []process {
		var out []process
		for _, pr := range procs {
			if !pr.gone() {
				out = append(out, pr)
			}
		}
		return out
	}
	for round := 0; round < 2; round++ {
		end := time.Now().Add(limit)
		for len(procs) > 0 && time.Now().Before(end) {
			if procs = left(); len(procs) > 0 {
				time.Sleep(10 * time.Millisecond)
			}
		}
		if len(procs) == 0 {
			return
		}
		for _, pr := range procs {
			pr.kill()
		}
	}
}

// statFields is /proc/PID/stat's fields after the command name, the state first
// (pid (comm) state ppid ... utime stime ... starttime): comm may hold spaces and
// parentheses. Nil when the process cannot be read.
func statFields(pid int) [][]byte {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	return bytes.Fields(b[i+1:])
}

// procStat reads a process's parent and start time (the 22nd field).
func procStat(pid int) (ppid int, start string, ok bool) {
	f := statFields(pid)
	if len(f) < 20 {
		return 0, "", false
	}
	ppid, _ = strconv.Atoi(string(f[1]))
	return ppid, string(f[19]), true
}

// processesOf is root and its descendants (none when root is gone): the browser's
// processes, which the Debian wrapper script starts below its own.
func processesOf(root int) []process {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	start := map[int]string{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, st, ok := procStat(pid); ok {
			parent[pid], start[pid] = pp, st
		}
	}
	var tree []process
	for pid := range parent {
		for q, n := pid, 0; q > 1 && n < 64; q, n = parent[q], n+1 {
			if q == root {
				tree = append(tree, process{pid, start[pid]})
				break
			}
		}
	}
	return tree
}

func pss(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(l, []byte("Pss:")); ok {
			f := bytes.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.Atoi(string(f[0]))
				return n
			}
		}
	}
	return 0
}

// clockTick is Linux's USER_HZ, the unit of /proc/PID/stat's CPU times (100 on
// every architecture Go runs Linux on).
const clockTick = 10 * time.Millisecond

// rendererCPU is the CPU time (user and system) of each renderer process of the
// browser with pid browser: nil where none can be read (no /proc, the browser
// gone).
func rendererCPU(browser int) map[process]time.Duration {
	if browser == 0 {
		return nil
	}
	var out map[process]time.Duration
	for _, pr := range processesOf(browser) {
		cmd, err := os.ReadFile("/proc/" + strconv.Itoa(pr.pid) + "/cmdline")
		if err != nil || !bytes.Contains(cmd, []byte("--type=renderer")) {
			continue
		}
		// After the comm: state (3rd field) ... utime (14th), stime (15th).
		f := statFields(pr.pid)
		if len(f) < 13 {
			continue
		}
		u, err1 := strconv.ParseInt(string(f[11]), 10, 64)
		s, err2 := strconv.ParseInt(string(f[12]), 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		if out == nil {
			out = map[process]time.Duration{}
		}
		out[pr] = time.Duration(u+s) * clockTick
	}
	return out
}

// ranFor is the most CPU time one renderer ran from reading before to now: a
// renderer that started since counts from nothing.
func ranFor(before, now map[process]time.Duration) time.Duration {
	var most time.Duration
	for pr, d := range now {
		most = max(most, d-before[pr])
	}
	return most
}
