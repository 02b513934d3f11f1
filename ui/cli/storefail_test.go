package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/store"
	"github.com/crawlconsole/crawlconsole/ui/cli/report"
)

// TestStoreFailChild is the crawl TestFullDiskStopsTheCrawlAndLosesNothing runs in a
// subprocess under a file-size limit; it does nothing unless STOREFAIL_CHILD_ARGS is
// set.
func TestStoreFailChild(t *testing.T) {
	args := childArgs(t, "STOREFAIL_CHILD_ARGS", "TestFullDiskStopsTheCrawlAndLosesNothing")
	if v := os.Getenv("STOREFAIL_CHILD_FSIZE"); v != "" {
		limit, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		// RLIMIT_FSIZE: a write past limit bytes of any file fails with EFBIG, as on a
		// full disk (ENOSPC) — once SIGXFSZ, whose default action kills the process,
		// is ignored.
		signal.Ignore(syscall.SIGXFSZ)
		var rl syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &rl); err != nil {
			t.Fatal(err)
		}
		rl.Cur = limit
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &rl); err != nil {
			t.Fatal(err)
		}
	}
	os.Exit(Main(args, os.Stdout, os.Stderr))
}

// TestFullDiskStopsTheCrawlAndLosesNothing crawls the sandbox in a subprocess whose
// files may not grow past a third of what the whole crawl needs (a real write limit,
// RLIMIT_FSIZE, standing in for a full disk). The crawl must stop itself soon after
// the store fails, exit with ExitStoreFailed and a message saying what failed and what
// to do, report in --stats-json the error and only the pages it committed, and leave a
// sound database; resumed without the limit it must end with exactly the pages of an
// uninterrupted crawl.
func TestFullDiskStopsTheCrawlAndLosesNothing(t *testing.T) {
	t.Parallel() // its own sandbox, store, ports and subprocesses
	if testing.Short() {
		t.Skip("runs subprocesses")
	}
	sb, seeds, conf := fastSandbox(t)
	dir := filepath.Dir(conf)
	type result struct {
		code   int
		out    string
		stats  map[string]any
		timely bool
	}
	crawl := func(db string, fsize int64, deadline time.Duration) result {
		t.Helper()
		statsPath := db + ".stats.json"
		var limit []string
		if fsize > 0 {
			limit = append(limit, "STOREFAIL_CHILD_FSIZE="+strconv.FormatInt(fsize, 10))
		}
		cmd := childCmd("TestStoreFailChild", "STOREFAIL_CHILD_ARGS", sandboxCrawl(sb, conf, db, seeds, "--stats-json", statsPath), limit...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		r := result{timely: true}
		select {
		case <-exited:
		case <-time.After(deadline):
			r.timely = false
			cmd.Process.Signal(syscall.SIGKILL)
			<-exited
		}
		r.code, r.out = cmd.ProcessState.ExitCode(), out.String()
		if b, err := os.ReadFile(statsPath); err == nil {
			if err := json.Unmarshal(b, &r.stats); err != nil {
				t.Fatalf("%s: %v\n%s", statsPath, err, b)
			}
		}
		return r
	}

	ref := filepath.Join(dir, "ref.db")
	began := time.Now()
	if r := crawl(ref, 0, 5*time.Minute); r.code != 0 {
		t.Fatalf("uninterrupted crawl: exit %d\n%s", r.code, tail(r.out, 2000))
	}
	whole := time.Since(began)
	want := pageSet(t, ref)
	if len(want) < 200 {
		t.Fatalf("reference crawl stored only %d pages", len(want))
	}
	fi, err := os.Stat(ref)
	if err != nil {
		t.Fatal(err)
	}
	limit := fi.Size() / 3

	db := filepath.Join(dir, "full.db")
	// The store fails a third of the way in; a crawl that does not stop on it runs to
	// the end (or, waiting for link callbacks that never come, forever).
	r := crawl(db, limit, 3*whole+30*time.Second)
	if !r.timely {
		t.Fatalf("the crawl did not end after its store failed (killed after %v)\n%s", 3*whole+30*time.Second, tail(r.out, 2000))
	}
	if r.code != ExitStoreFailed {
		t.Fatalf("exit status %d after the store failed; want %d (ExitStoreFailed)\n%s", r.code, ExitStoreFailed, tail(r.out, 2000))
	}
	for _, s := range []string{"store " + db + " failed", "Free disk space", "--db " + db} {
		if !strings.Contains(r.out, s) {
			t.Errorf("output lacks %q: it must name the failure and say what to do\n%s", s, tail(r.out, 2000))
		}
	}
	if r.stats == nil || r.stats["store_error"] == nil || r.stats["store_error"] == "" {
		t.Fatalf("--stats-json has no store_error: %v", r.stats)
	}

	// The file as the failed crawl left it: sound, and the counters match it.
	ro, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := ro.IntegrityCheck(); err != nil || ok != "ok" {
		t.Fatalf("integrity_check after the failure: %q %v", ok, err)
	}
	c, err := ro.Counts()
	ro.Close()
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := r.stats["pages_stored"].(float64)
	fetched, _ := r.stats["pages_fetched"].(float64)
	if int64(stored) != c.Pages {
		t.Errorf("pages_stored %v, but the file holds %d pages: the counter must count only committed pages", stored, c.Pages)
	}
	if c.Pages == 0 || c.Pages >= int64(len(want)) {
		t.Fatalf("%d pages committed before the failure, of %d: the limit did not bite part way", c.Pages, len(want))
	}
	if fetched >= float64(len(want)) {
		t.Errorf("%v pages fetched after a failure at %d committed pages: fetching did not stop", fetched, c.Pages)
	}

	// `crawlconsole stats` tells what happened when the record fitted (one small row,
	// best effort: it often fits where the failed batch's WAL frames were, not always).
	var so, se bytes.Buffer
	if code := report.Stats([]string{"--db", db}, &so, &se); code != 0 {
		t.Fatalf("stats --db after the failure: exit %d\n%s", code, se.String())
	}
	recorded := strings.Contains(so.String(), "STORE FAILED at ")
	if recorded && !strings.Contains(so.String(), "resume with --db "+db) {
		t.Errorf("stats shows the failure without what to do:\n%s", so.String())
	}

	// Disk space freed: the same command resumes and ends with every page, once.
	if r := crawl(db, 0, 5*time.Minute); r.code != 0 {
		t.Fatalf("resumed crawl: exit %d\n%s", r.code, tail(r.out, 2000))
	}
	sameSet(t, "pages after the resume", finalStore(t, db), want)
	so.Reset()
	if report.Stats([]string{"--db", db}, &so, &se); strings.Contains(so.String(), "STORE FAILED") {
		t.Errorf("stats still reports the store failure after a complete resume:\n%s", so.String())
	}
	t.Logf("limit %d bytes: %d of %d pages committed before the failure (%v fetched; failure recorded for stats: %v); resumed to all %d",
		limit, c.Pages, len(want), fetched, recorded, len(want))
}
