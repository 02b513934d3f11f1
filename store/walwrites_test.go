package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// writeCalls is how many write system calls the process has made (syscw in
// /proc/self/io); ok is false where the kernel does not count them.
func writeCalls(t *testing.T) (n int64, ok bool) {
	t.Helper()
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		if v, found := strings.CutPrefix(line, "syscw:"); found {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// randomBody is n bytes that compression keeps as large.
func randomBody(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// A commit of 200 pages of 3 KB, with their links, writes over 200 WAL frames (a
// page row fills a database page of its own); they reach the file in a few write
// calls, not two a frame (its header, then its page), which cost a crawl over five
// system calls a stored page.
func TestCommitWritesItsWALInFewCalls(t *testing.T) {
	s, _ := openTemp(t, Options{BatchSize: 1000, BatchDelay: time.Hour})
	mustFlush(t, s)
	before, ok := writeCalls(t)
	if !ok {
		t.Skip("no write-call count in /proc/self/io")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const pages = 200
	for i := range pages {
		u := testURL(fmt.Sprintf("h%d.test", i%13), i)
		p := testPage(u.URL, 100)
		p.Body = randomBody(rng, 3000)
		s.SetState(u.URL, InProgress, i%16, "")
		s.SavePage(p, []URL{testURL("links.test", 7919*i%100_000)}, nil)
	}
	mustFlush(t, s)
	after, _ := writeCalls(t)
	if n := queryInt(t, s.rdb, `SELECT count(*) FROM pages`); n != pages {
		t.Fatalf("%d pages stored, want %d", n, pages)
	}
	if calls := after - before; calls > 20 {
		t.Errorf("storing %d pages in one commit took %d write calls, want at most 20", pages, calls)
	}
}

// A transaction larger than the page cache spills pages to the WAL before its
// commit and writes some of them again: what is stored reads back whole, and the
// file checks out, after the store is closed and opened again.
func TestSpilledTransactionReadsBackWhole(t *testing.T) {
	s, path := openTemp(t, Options{BatchSize: 5000, BatchDelay: time.Hour, CacheMiB: 1})
	rng := rand.New(rand.NewPCG(1, 2))
	const pages = 1500
	bodies := make([][]byte, pages)
	for i := range pages {
		u := testURL(fmt.Sprintf("h%d.test", i%29), i)
		p := testPage(u.URL, 100)
		p.Body = randomBody(rng, 2000+rng.IntN(4000))
		bodies[i] = p.Body
		links := make([]URL, 6)
		for j := range links {
			links[j] = testURL(fmt.Sprintf("l%d.test", rng.IntN(50)), rng.IntN(1_000_000))
		}
		s.SavePage(p, links, nil)
	}
	mustFlush(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = reopen(t, path)
	if v, err := s.IntegrityCheck(); err != nil || v != "ok" {
		t.Fatalf("integrity check: %q, %v", v, err)
	}
	for i := range pages {
		u := testURL(fmt.Sprintf("h%d.test", i%29), i).URL
		p, err := s.Page(u)
		if err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		if !bytes.Equal(p.Body, bodies[i]) {
			t.Fatalf("page %d: body of %d bytes read back as %d bytes, not the same", i, len(bodies[i]), len(p.Body))
		}
	}
	if n := queryInt(t, s.rdb, `SELECT count(*) FROM urls`); n < pages {
		t.Errorf("%d URLs, want at least %d", n, pages)
	}
}
