package engine

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/steer"
	"github.com/crawlconsole/crawlconsole/store"
)

// steerState is everything steering changes: each site as declared (options, own
// keywords in order, keywords in force, shared ones taken off it) and the budgets set.
func steerState(e *Engine) string {
	var b strings.Builder
	book := e.sites.Load()
	for _, s := range book.Sites() {
		dropped := slices.Clone(book.Dropped()[s.Name])
		slices.Sort(dropped)
		dropped = slices.Compact(dropped)
		fmt.Fprintf(&b, "site %s %s entry=%s search=%s pages=%d class=%s budget=%d own=%q keywords=%q dropped=%q\n",
			s.Name, s.Kind, s.Entry, s.Search, s.Pages, s.Class, s.Budget, s.Keywords, book.Keywords(s.Name), dropped)
	}
	e.mu.Lock()
	var budgets []string
	for k, n := range e.budget.Overrides() {
		if !k.Host && !k.Total {
			budgets = append(budgets, fmt.Sprintf("budget site %s round %d", k.Name, n))
			continue
		}
		budgets = append(budgets, fmt.Sprintf("budget host=%v %s total=%v %d", k.Host, k.Name, k.Total, n))
	}
	e.mu.Unlock()
	slices.Sort(budgets)
	b.WriteString(strings.Join(budgets, "\n"))
	return b.String()
}

// A long-running crawl whose operator adds and takes off keywords, sites and
// budgets over and over keeps a short steering list: changes that undo each other
// fold away, a budget replaces the one before. The restart on that list gives the
// state the crawl had, and so does replaying the whole unfolded list of changes on a
// fresh store.
func TestSteeringListFolded(t *testing.T) {
	t.Parallel()
	w := newTopicWeb(t)
	o := topicOptions(t, w)
	newsHost := strings.Split(w.news, ":")[0]
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	add("keyword add harbor library")
	add("keyword rm harbor 台风")
	add("site add news http://127.0.0.33:9/")
	const rounds = 40
	for i := 0; i < rounds; i++ {
		add("keyword add harbor storm%d", i%3)
		add("budget harbor %d", i+1) // between the two: still folds
		add("keyword rm harbor storm%d", i%3)
		add("budget host %s %d total", newsHost, 100+i)
		add("site add social tide http://127.0.0.34:9/search?q={keyword}&page={page} quake")
		add("keyword add tide surge")
		add("budget tide 5") // replaced by the next round's: the site's add and rm then fold
		add("keyword rm tide surge")
		add("site rm tide")
		add("keyword rm chirp flood") // chirp's only own keyword: see below
		add("keyword add chirp flood")
	}
	add("keyword add chirp storm surge")

	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second)
	for _, line := range lines {
		s, err := steer.Parse(strings.Fields(line))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Steer(s); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	live := steerState(e)
	if err := e.st.Flush(); err != nil {
		t.Fatal(err)
	}
	data, err := e.st.GetMeta(steer.Meta)
	if err != nil {
		t.Fatal(err)
	}
	var kept []steer.Change
	if err := json.Unmarshal(data, &kept); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range kept {
		got = append(got, s.String())
	}
	// What stands: the three changes made once, the last budget of each kind (the
	// last tide's with its site's add and rm: a budget needs its site declared), the
	// new keyword; and chirp's "rm flood, add flood", which is no round trip:
	// taking a social site's last own keyword takes the shared ones off it too. Each
	// later "add flood, rm flood" is one, and folds, so the last "add flood" stands.
	want := []string{
		"keyword add harbor library",
		"keyword rm harbor 台风",
		"site add news http://127.0.0.33:9/",
		"keyword rm chirp flood",
		fmt.Sprintf("budget harbor %d", rounds),
		fmt.Sprintf("budget host %s %d total", newsHost, 100+rounds-1),
		"site add social tide http://127.0.0.34:9/search?q={keyword}&page={page} quake",
		"budget tide 5",
		"site rm tide",
		"keyword add chirp flood",
		"keyword add chirp storm surge",
	}
	if !slices.Equal(got, want) {
		t.Errorf("steering list after %d changes (%d bytes):\n%s\nwant:\n%s", len(lines), len(data), strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(data) > 2048 {
		t.Errorf("steering list is %d bytes after %d changes", len(data), len(lines))
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	e2 := startEngine(t, o)
	if after := steerState(e2); after != live {
		t.Errorf("state after the restart:\n%s\nbefore:\n%s", after, live)
	}
	e2.Close()

	// The whole list, unfolded, replayed on a fresh store: the same state, and the
	// list it keeps is the folded one.
	o3 := o
	o3.DB = filepath.Join(t.TempDir(), "crawl.db")
	presetSteering(t, o3.DB, lines...)
	e3 := startEngine(t, o3)
	if full := steerState(e3); full != live {
		t.Errorf("state from the unfolded list:\n%s\nfrom the live changes:\n%s", full, live)
	}
	n := e3.steer.Len()
	if n != len(want) {
		t.Errorf("replaying %d changes kept %d, want %d", len(lines), n, len(want))
	}
}

// A keyword added and removed folds out of the list, yet what its removal withdrew
// stays withdrawn at the next start: its searches left queued in the store by the
// run that folded the pair (or planned for a revisit) are not fetched after the
// restart but counted as steered_out, as the whole list's replay would have them.
// Once the store shows them ended, the start after forgets them.
func TestFoldedRemovalStillWithdraws(t *testing.T) {
	t.Parallel()
	w := newTopicWeb(t)
	o := topicOptions(t, w)
	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second)
	for _, line := range []string{"keyword add chirp zebra", "keyword rm chirp zebra"} {
		s, _ := steer.Parse(strings.Fields(line))
		if _, err := e.Steer(s); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
	kept, outs := e.steer.Len(), e.steer.Outs()
	if kept != 0 || outs != 2 {
		t.Fatalf("%d changes kept, %d withdrawn sources remembered; want 0 and zebra's 2 searches", kept, outs)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// As if the run had stopped before the withdrawal reached them: queued again.
	withStore(t, o.DB, func(st *store.Store) {
		for p := 1; p <= 2; p++ {
			u, _ := frontier.Normalize(config.SearchURL(o.Sites[1].Search, "zebra", p))
			st.SetState(u, store.Unprocessed, 0, "")
		}
	})

	// The restarted run is told apart by its User-Agent: a search the first run sent
	// before it was closed may reach the server after the restart.
	o.UserAgent = "crawlconsole/0.1 (restarted run)"
	e2 := startEngine(t, o)
	waitDone(t, e2, 30*time.Second)
	if late := w.fetchedBy(o.UserAgent, "/search?q=zebra&"); len(late) > 0 {
		t.Errorf("searches of the removed keyword fetched after the restart: %v", late)
	}
	if n := e2.Stats().Skipped[front.SkipSteeredOut]; n != 2 {
		t.Errorf("%d withdrawn as %s after the restart, want the 2 searches left queued", n, front.SkipSteeredOut)
	}
	if err := e2.Close(); err != nil {
		t.Fatal(err)
	}

	e3 := startEngine(t, o)
	outs = e3.steer.Outs()
	if outs != 0 {
		t.Errorf("%d withdrawn sources still remembered once the store shows them ended", outs)
	}
}
