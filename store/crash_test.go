package store

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The crash test's crawl: page i lives at crashURL(i) and links to pages 2i+1 and
// 2i+2 (new) plus itself and its parent (known), so every page's URL was discovered
// by an earlier page. Three URLs ahead are marked InProgress, as lanes would, so a
// kill always leaves some in flight.

func crashURL(i int) string { return fmt.Sprintf("http://h%d.test/p/%d", i%7, i) }

func crashURLTask(i int) URL {
	return URL{URL: crashURL(i), Host: fmt.Sprintf("h%d.test", i%7), ParentHash: uint64((i-1)/2) + 1, Depth: 1}
}

func crashPage(i int) Page {
	p := testPage(crashURL(i), 1500+i%3000)
	p.SimHash = uint64(i)
	return p
}

func crashLinks(i int) []URL {
	return []URL{crashURLTask(2*i + 1), crashURLTask(2*i + 2), crashURLTask(i), crashURLTask((i - 1) / 2)}
}

// childCrawl crawls until killed, resuming after the pages already stored, and prints
// "ack N" each time a Flush confirmed pages 0..N-1.
func childCrawl(path string) {
	s, err := Open(path, Options{BatchSize: 64, BatchDelay: 2 * time.Millisecond})
	if err != nil {
		fmt.Println("open error:", err)
		os.Exit(1)
	}
	c, err := s.Counts()
	if err != nil {
		fmt.Println("counts error:", err)
		os.Exit(1)
	}
	start := int(c.Pages)
	fmt.Printf("start %d recovered %d\n", start, s.Recovered())
	s.AddURLs([]URL{crashURLTask(0)}, nil)
	for i := start; i < start+200_000; i++ {
		s.SetState(crashURL(i+3), InProgress, i%4, "")
		s.SavePage(crashPage(i), crashLinks(i), nil)
		if i%5 == 0 {
			s.AddEvent(time.Now(), 0, i%4, "", "page "+strconv.Itoa(i))
		}
		if i%10 == 9 {
			if err := s.Flush(); err != nil {
				fmt.Println("flush error:", err)
				os.Exit(1)
			}
			fmt.Printf("ack %d\n", i+1)
		}
	}
	s.Close()
	os.Exit(0)
}

func TestKill9AtAnyMomentLosesNothingAcknowledged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crash.db")
	rounds := []struct {
		name  string
		acks  int           // wait for this many acknowledgements, then kill
		extra time.Duration // and up to this much more, at random (mid-batch)
	}{
		{"at start, during Open and the schema's creation", 0, 0},
		{"after the first flush", 1, 0},
		{"mid-batch", 3, 3 * time.Millisecond},
		{"after a longer run", 20, 0},
		{"mid-batch again", 5, 10 * time.Millisecond},
	}
	if testing.Short() {
		rounds = rounds[:3]
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	stored := 0
	for _, r := range rounds {
		t.Run(r.name, func(t *testing.T) {
			acked := runAndKill(t, path, r.acks, time.Duration(rng.Int64N(int64(r.extra)+1)))
			stored = checkAfterCrash(t, path, acked, stored)
		})
	}
}

// runAndKill starts a crawling child, SIGKILLs it once it acknowledged wantAcks
// flushes (plus extra), and returns the highest page count it acknowledged.
func runAndKill(t *testing.T, path string, wantAcks int, extra time.Duration) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := child(ctx, "crawl", path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	acked, acks := 0, 0
	deadline := time.After(90 * time.Second)
	for acks < wantAcks {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("child exited before %d acks (got %d): %v\n%s", wantAcks, acks, cmd.Wait(), stderr.String())
			}
			if n, found := strings.CutPrefix(l, "ack "); found {
				acked, _ = strconv.Atoi(n)
				acks++
			} else if !strings.HasPrefix(l, "start ") {
				t.Fatalf("child: %s", l)
			}
		case <-deadline:
			t.Fatalf("child made %d acks in 90s, want %d", acks, wantAcks)
		}
	}
	if extra > 0 {
		time.Sleep(extra) // choose a kill point between flushes; nothing waits on it
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	// Acks printed before the kill landed are acknowledged too.
	for l := range lines {
		if n, found := strings.CutPrefix(l, "ack "); found {
			acked, _ = strconv.Atoi(n)
		}
	}
	cmd.Wait()
	t.Logf("killed after %d acks (+%v): %d pages acknowledged", acks, extra, acked)
	return acked
}

// checkAfterCrash reopens the database the way a restart would and checks that it
// resumes cleanly; it returns the number of pages stored.
func checkAfterCrash(t *testing.T, path string, acked, storedBefore int) int {
	t.Helper()
	s, err := Open(path, Options{}) // the dead child's lock must be gone
	if err != nil {
		t.Fatalf("reopen after kill -9: %v", err)
	}
	defer s.Close()
	if ok, err := s.IntegrityCheck(); err != nil || ok != "ok" {
		t.Fatalf("integrity_check = %q, %v", ok, err)
	}
	c, err := s.Counts()
	if err != nil {
		t.Fatal(err)
	}
	if c.InProgress != 0 {
		t.Errorf("%d URLs still in progress after Open", c.InProgress)
	}
	if acked > 0 && s.Recovered() == 0 {
		t.Errorf("Recovered() = 0 after killing a child with URLs in flight")
	}
	n := int(c.Pages)
	if n < acked || n < storedBefore {
		t.Fatalf("%d pages stored; %d were acknowledged and %d stored before this run", n, acked, storedBefore)
	}
	// Commits happen in submission order, so the stored pages are exactly 0..n-1,
	// each once, each with its URL processed and its links present.
	urls, err := s.PageURLs()
	if err != nil {
		t.Fatal(err)
	}
	if len(urls) != n {
		t.Errorf("PageURLs has %d entries, Counts %d pages", len(urls), n)
	}
	seen := map[string]bool{}
	for _, u := range urls {
		if seen[u] {
			t.Errorf("page %s stored twice", u)
		}
		seen[u] = true
	}
	for i := 0; i < n; i++ {
		if !seen[crashURL(i)] {
			t.Fatalf("page %d of %d missing", i, n)
		}
		u, err := s.URLState(crashURL(i))
		if err != nil || u.State != Processed {
			t.Fatalf("page %d stored but its URL is %+v, %v", i, u, err)
		}
		for _, l := range crashLinks(i) {
			if _, err := s.URLState(l.URL); err != nil {
				t.Fatalf("page %d stored but its link %s is not: %v", i, l.URL, err)
			}
		}
	}
	if n > 0 {
		last := n - 1
		p, err := s.Page(crashURL(last))
		if err != nil || !bytes.Equal(p.Body, crashPage(last).Body) || p.SimHash != uint64(last) {
			t.Errorf("last page %d does not read back intact: %v", last, err)
		}
	}
	if q, _ := s.Queued(time.Now(), 0, 1); n > 0 && (len(q) == 0 || q[0].URL == "") {
		t.Errorf("nothing queued to resume with after %d pages", n)
	}
	return n
}
