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

// procStat reads a process's parent and start time.
func procStat(pid int) (ppid int, start string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", false
	}
	// pid (comm) state ppid ... starttime (the 22nd field): comm may hold spaces
	// and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, "", false
	}
	f := bytes.Fields(b[i+1:])
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
