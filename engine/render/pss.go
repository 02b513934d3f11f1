package render

import (
	"bytes"
	"os"
	"strconv"
	"sync"
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
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	parent := map[int]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(st, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(st[i+1:])
		if len(f) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(string(f[1]))
		parent[pid] = pp
	}
	total := 0
	for pid := range parent {
		for q, n := pid, 0; q > 1 && n < 64; q, n = parent[q], n+1 {
			if q == root {
				total += pss(pid)
				break
			}
		}
	}
	return total
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
