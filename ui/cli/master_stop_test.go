package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// TestStoppedMasterSaysToStartTheMasterAgain: a master stopped with URLs left says
// to go on by starting the master again on its store, not "the crawl": `crawl --db`
// on a master's store crawls from that box alone, without its workers.
func TestStoppedMasterSaysToStartTheMasterAgain(t *testing.T) {
	t.Parallel() // two masters that each wait out their --duration
	if testing.Short() {
		t.Skip("starts a master")
	}
	db := filepath.Join(t.TempDir(), "m.db")
	var stdout, stderr strings.Builder
	Main([]string{"master", "--headless", "--duration", "1s", "--listen", "127.0.0.1:0", "--db", db,
		"--allow-private", "127.0.0.0/8", "http://127.0.0.1:9/"}, &stdout, &stderr)
	errs := stderr.String()
	if !strings.Contains(errs, "stopped with 1 URL left to fetch") {
		t.Fatalf("a master stopped before any worker joined does not say its URL is left\n%s", errs)
	}
	if want := "to go on, start the master again with --db " + db; !strings.Contains(errs, want) {
		t.Errorf("stderr does not say %q\n%s", want, errs)
	}
	// Started again on its store, it says what it resumes, as crawl and serve do.
	stderr.Reset()
	Main([]string{"master", "--headless", "--duration", "1s", "--listen", "127.0.0.1:0", "--db", db,
		"--allow-private", "127.0.0.0/8"}, &stdout, &stderr)
	if want := "crawlconsole master: resuming the crawl in " + db; !strings.Contains(stderr.String(), want) {
		t.Errorf("a master started again on its store does not say %q\n%s", want, stderr.String())
	}
}

// TestNothingFetchedSaysHowToStartThatRunAgain: a crawl that fetched nothing because
// a site's robots.txt did not answer says to start it again on its store, the master
// as a master (`crawl --db` on a master's store crawls from that box alone).
func TestNothingFetchedSaysHowToStartThatRunAgain(t *testing.T) {
	st := view.Stats{Errors: map[string]int64{"robots_unreachable": 1}}
	for _, rc := range []runConfig{{title: "crawl", db: "a.db"}, {title: "master", db: "m.db"}} {
		if why := nothingFetched(st, rc.startAgain()); !strings.Contains(why, rc.startAgain()+" after that") {
			t.Errorf("%s: %q does not say %q", rc.title, why, rc.startAgain())
		}
	}
}
