package cli

import (
	"context"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/store"
)

// TestDemoResumedOnItsStoreFetchesItsURLs: a demo stopped and started again on the
// same --db goes on with the URLs it left: the sandbox web comes back on the port
// they name. It came up on a new port, every URL left failed as unreachable
// (robots_unreachable for every host) and nothing was fetched. The first, stopped
// with URLs left, says how to go on, as a crawl does (it said nothing of it).
func TestDemoResumedOnItsStoreFetchesItsURLs(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "demo.db")
	args := []string{"--headless", "--hosts", "8", "--lanes", "4", "--db", db}
	var stderr strings.Builder
	if code := runDemo(context.Background(), append(args, "--duration", "1s"), io.Discard, &stderr); code != 0 {
		t.Fatalf("first demo: exit %d", code)
	}
	left := unfinished(t, db)
	if len(left) == 0 {
		t.Fatal("the first demo left no URL to fetch: the test shows nothing")
	}
	if !strings.Contains(stderr.String(), "URLs left to fetch; the ") || !strings.Contains(stderr.String(), "to go on, start the demo again with --db "+db+"\n") {
		t.Errorf("a demo stopped with URLs left does not say how to go on:\n%s", stderr.String())
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- runDemo(ctx, args, io.Discard, io.Discard) }()
	deadline := time.Now().Add(enginetest.Patience)
	for !anyProcessed(t, db, left) {
		if time.Now().After(deadline) {
			t.Fatalf("in %v the resumed demo fetched none of the %d URLs the first left (%s...)", enginetest.Patience, len(left), left[0])
		}
		select {
		case code := <-done:
			// It may have fetched them and ended since the last look: judge its store.
			if anyProcessed(t, db, left) {
				return
			}
			t.Fatalf("the resumed demo ended (exit %d) and fetched none of the URLs the first left", code)
		case <-time.After(200 * time.Millisecond):
		}
	}
	cancel()
	<-done
}

// unfinished lists up to 500 URLs the store at db has queued or in progress.
func unfinished(t *testing.T, db string) []string {
	t.Helper()
	st, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	us, err := st.Unfinished(500)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, u := range us {
		out = append(out, u.URL)
	}
	return out
}

// anyProcessed reports whether the store at db (a crawl writing it) has fetched
// one of urls.
func anyProcessed(t *testing.T, db string, urls []string) bool {
	t.Helper()
	st, err := store.OpenReadOnly(db)
	if err != nil {
		return false // between the crawl's writes: asked again
	}
	defer st.Close()
	us, err := st.URLStates(urls)
	if err != nil {
		return false
	}
	for _, u := range us {
		if u.State == store.Processed {
			return true
		}
	}
	return false
}

// A demo resumed while another process holds the port its URLs name says what to do
// about it: it said only that the URLs left would fail.
func TestDemoResumedOnATakenPortSaysWhatToDo(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "demo.db")
	args := []string{"--headless", "--hosts", "8", "--lanes", "4", "--db", db}
	if code := runDemo(context.Background(), append(args, "--duration", "1s"), io.Discard, io.Discard); code != 0 {
		t.Fatalf("first demo: exit %d", code)
	}
	last := lastDemoAddr(db)
	if last == "" {
		t.Fatal("the first demo left no URL to fetch: the test shows nothing")
	}
	ln, err := net.Listen("tcp", last)
	if err != nil {
		t.Skipf("the port the URLs name was taken before the test took it: %v", err)
	}
	defer ln.Close()
	var stderr strings.Builder
	runDemo(context.Background(), append(args, "--duration", "300ms"), io.Discard, &stderr)
	if want := "to go on with them, stop what holds " + last + " and start the demo again with --db " + db + "\n"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr does not say %q:\n%s", want, stderr.String())
	}
}
