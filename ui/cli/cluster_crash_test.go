package cli

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
	"github.com/crawlconsole/crawlconsole/ui/internal/uitest"
)

// killRun is a distributed crawl of a sandbox web whose master and workers the test
// SIGKILLs and restarts.
type killRun struct {
	t      *testing.T
	sb     *sandbox.Sandbox
	rng    *rand.Rand
	db     string
	conf   string
	listen string // fixed: a restarted master serves its workers on the same address
	hb     time.Duration

	master    *child
	masters   int // master processes started
	workers   map[string]*workerProc
	clusterIP map[string]string // every address a worker ever left from -> worker
	replaced  int
	truthAt   int                    // truth log index read up to by redelivered
	deaths    map[string][]time.Time // worker -> when it was killed
}

type workerProc struct {
	name  string
	binds []string
	c     *child
}

// TestClusterKill9LosesNothing runs `crawlconsole master` and three `crawlconsole
// worker` processes over the sandbox, SIGKILLs a worker at random points five times
// (restarted at once, replaced by a new name, or restarted after the master declared
// it dead) and the master twice (restarted on the same --db and --listen; the workers
// find it again by themselves). The crawl must end by itself with exactly the pages of
// an uninterrupted single-process crawl, none twice, the database sound; and after
// each worker kill, what the dead worker held for its hosts is fetched by others
// (how long after the kill is logged).
func TestClusterKill9LosesNothing(t *testing.T) {
	t.Parallel() // its own sandbox, store, ports and subprocesses
	if testing.Short() {
		t.Skip("kill test runs subprocesses")
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("CLUSTER_KILL_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("kill points drawn with CLUSTER_KILL_SEED=%d", seed)
	began := time.Now()
	// At half the usual scale every host's crawl (serial, at the polite pace) lasts
	// twice as long, long enough for seven kills with half the pages (each page
	// costs CPU in four processes; the kills wait on heartbeats and restarts).
	sb := clusterSandbox(t, 11, 24, func(c *sandbox.Config) { c.Scale = 25 })
	dir := t.TempDir()
	ref := referenceCrawl(sb, dir)
	k := &killRun{t: t, sb: sb, rng: rand.New(rand.NewPCG(seed, 1)), db: filepath.Join(dir, "crawl.db"),
		conf: politeConfig(t, sb, dir, 0), listen: uitest.FreeAddr(t), hb: 300 * time.Millisecond,
		workers: map[string]*workerProc{}, clusterIP: map[string]string{}, deaths: map[string][]time.Time{}}
	k.startMaster()
	// The master keeps the crawl's credential next to the database, for its workers
	// and its own restarts; nobody else may read it.
	if fi, err := os.Stat(k.tokenFile()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("credential file %s: %v, mode %v; want 0600", k.tokenFile(), err, fi.Mode().Perm())
	}
	for i, name := range []string{"w1", "w2", "w3"} {
		k.startWorker(name, fmt.Sprintf("127.0.0.%d", 2+2*i), fmt.Sprintf("127.0.0.%d", 3+2*i))
	}

	// Kill points: 5..34 stored pages apart (reached at once when the crawl got
	// there while the last kill was judged), so every kill lands while the crawl runs.
	modes := []string{"restart", "master", "replace", "restart-after-death", "master", "replace", "restart"}
	var target int64
	var checked []redelivery
	for _, mode := range modes {
		target += 5 + int64(k.rng.IntN(30))
		k.waitPages(target)
		if mode == "master" {
			k.killMaster()
		} else {
			checked = append(checked, k.killWorker(mode)...)
		}
	}
	if len(checked) < 3 {
		t.Fatalf("only %d hosts had unfetched URLs on a killed worker: the redelivery check judged too little", len(checked))
	}

	// Let the crawl finish: the master ends by itself (--until-idle).
	if code := k.master.wait(t); code != 0 || !strings.Contains(k.master.out.String(), "done:") {
		k.fatalf("the last master exited with status %d without finishing", code)
	}
	for _, w := range k.workers {
		w.c.kill()
	}
	want := (<-ref).get(t)
	got := finalStore(t, k.db)
	sameSet(t, fmt.Sprintf("after %d master and %d worker kills", k.masters-1, len(modes)-(k.masters-1)), got, want)

	var worst time.Duration
	for _, r := range checked {
		worst = max(worst, r.after)
	}
	truth := sb.Truth()
	k.logOverlaps(truth.Requests())
	violations := 0
	for _, r := range truth.Requests() {
		if r.Violation {
			violations++
		}
	}
	t.Logf("%d pages, identical to the uninterrupted crawl; %d master runs, %d workers started; %d hosts of killed workers "+
		"re-fetched by others, slowest %v after the kill (heartbeat timeout %v); %d bans, %d adjacency violations; %v in all",
		len(got), k.masters, len(k.clusterIP)/2, len(checked), worst.Round(time.Millisecond), 3*k.hb,
		len(truth.Bans()), violations, time.Since(began).Round(time.Second))
}

func (k *killRun) tokenFile() string { return k.db + ".token" }

// fatalf fails the test with the processes' last output and the database's state.
func (k *killRun) fatalf(format string, args ...any) {
	k.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, format, args...)
	p, err := peekDB(k.db)
	fmt.Fprintf(&b, "\ndatabase: %+v (%v)", p, err)
	if k.master != nil {
		fmt.Fprintf(&b, "\n--- master (run %d):\n%s", k.masters, tail(k.master.out.String(), 30))
	}
	names := make([]string, 0, len(k.workers))
	for n := range k.workers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "\n--- worker %s:\n%s", n, tail(k.workers[n].c.out.String(), 10))
	}
	k.t.Fatal(b.String())
}

// events logs the master's warnings persisted in its database.
func (k *killRun) events() {
	st, err := store.OpenReadOnly(k.db)
	if err != nil {
		return
	}
	defer st.Close()
	evs, _ := st.RecentEvents(40)
	for _, e := range evs {
		k.t.Logf("event %s %s %s", e.At.Format("15:04:05.000"), e.Host, e.Msg)
	}
}

func (k *killRun) startMaster() {
	k.t.Helper()
	args := []string{"master", "--config", k.conf, "--headless", "--until-idle", "--db", k.db, "--listen", k.listen,
		"--allow-private", "127.0.0.0/8", "--dns-server", k.sb.DNSAddr(), "--heartbeat", k.hb.String()}
	for _, s := range k.sb.Info().Sites {
		args = append(args, s.Entry)
	}
	k.masters++
	k.master = startChild(k.t, fmt.Sprintf("master run %d", k.masters), args...)
	k.master.waitOutput(k.t, "workers join with", 90*time.Second)
}

func (k *killRun) startWorker(name string, binds ...string) {
	k.t.Helper()
	args := []string{"worker", "--join", "nats://" + k.listen, "--name", name, "--token-file", k.tokenFile(),
		"--allow-private", "127.0.0.0/8", "--dns-server", k.sb.DNSAddr()}
	for _, b := range binds {
		args = append(args, "--egress", "bind:"+b)
		k.clusterIP[b] = name
	}
	w := &workerProc{name: name, binds: binds, c: startChild(k.t, "worker "+name, args...)}
	k.workers[name] = w
	w.c.waitOutput(k.t, "worker "+name+": joined", 90*time.Second)
}

func (k *killRun) peek() peek {
	k.t.Helper()
	p, err := peekDB(k.db)
	if err != nil {
		k.fatalf("reading the master's database: %v", err)
	}
	return p
}

// waitPages waits until the master has stored n pages.
func (k *killRun) waitPages(n int64) {
	k.t.Helper()
	deadline := time.Now().Add(enginetest.Patience)
	for {
		p := k.peek()
		if p.Pages >= n {
			return
		}
		if k.master.exited() {
			k.fatalf("the crawl ended with %d pages, before the kill point at %d: make the web bigger", p.Pages, n)
		}
		if time.Now().After(deadline) {
			k.fatalf("stored pages stuck at %d for 30s (waiting for %d)", p.Pages, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// killMaster SIGKILLs the master and starts it again on the same database and
// address; every live worker must join the new master by itself.
func (k *killRun) killMaster() {
	k.t.Helper()
	k.master.kill()
	at := time.Now()
	before := k.peek().Pages
	k.startMaster()
	deadline := time.Now().Add(enginetest.Patience)
	var rejoined time.Duration
	for {
		p := k.peek()
		joined := map[string]bool{}
		for _, n := range p.Nodes {
			if n.State == view.NodeActive && n.Joined.After(at) {
				joined[n.Name] = true
			}
		}
		missing := []string{}
		for name := range k.workers {
			if !joined[name] {
				missing = append(missing, name)
			}
		}
		if len(missing) == 0 && rejoined == 0 {
			rejoined = time.Since(at)
		}
		if rejoined > 0 && p.Pages > before {
			break
		}
		if time.Now().After(deadline) {
			k.fatalf("15s after the master's restart: workers %v have not rejoined (pages %d, %d before the kill)", missing, p.Pages, before)
		}
		time.Sleep(50 * time.Millisecond)
	}
	storing := time.Since(at)
	// Every worker's results reach the new master: the pages fetched up to now are
	// all stored before the next kill (a result the dead master's server never
	// acknowledged goes again only after a timeout).
	var since []string
	for _, r := range k.sb.Truth().Requests() {
		if k.clusterIP[r.IP] != "" && r.Start.After(at) && r.Status == 200 && r.Kind != "robots" {
			since = append(since, r.URL)
		}
	}
	for {
		left := k.unstored(since)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			k.explainUnstored(left)
			k.fatalf("15s after the master's restart, %d pages workers fetched in its first %v are not stored, e.g. %v",
				len(left), storing.Round(time.Millisecond), first(left))
		}
		time.Sleep(50 * time.Millisecond)
	}
	k.t.Logf("master killed at %d pages; restarted, its %d workers rejoined after %v, first page stored after %v, "+
		"the %d pages fetched by then after %v", before, len(k.workers), rejoined.Round(time.Millisecond),
		storing.Round(time.Millisecond), len(since), time.Since(at).Round(time.Millisecond))
}

// unstored returns those of urls whose page the master has not stored.
func (k *killRun) unstored(urls []string) []string {
	k.t.Helper()
	st, err := store.OpenReadOnly(k.db)
	if err != nil {
		k.fatalf("reading the master's database: %v", err)
	}
	defer st.Close()
	states, err := st.URLStates(urls)
	if err != nil {
		k.fatalf("reading the master's database: %v", err)
	}
	done := map[string]bool{}
	for _, u := range states {
		done[u.URL] = u.State == store.Processed
	}
	var out []string
	for _, u := range urls {
		if !done[u] {
			out = append(out, u)
		}
	}
	return out
}

// redelivery is one host a killed worker held URLs of, and how long after the kill
// another worker first fetched one of them.
type redelivery struct {
	host  string
	after time.Duration
}

// redeliveryLimit is how long the test waits for a dead worker's URLs to be fetched
// again: the heartbeat timeout (three periods) plus a guard for the master's check,
// dispatch, the new owner's DNS, robots.txt and lane pause. It is a guard, not the
// measure: on an idle box they come a few seconds after the timeout (the worst is
// logged), a loaded two-core box running the whole suite takes several times that.
func (k *killRun) redeliveryLimit() time.Duration { return 3*k.hb + enginetest.Patience }

// killWorker SIGKILLs a random live worker and, by mode, restarts it at once under
// its name, replaces it by a new worker with new addresses, or restarts it once the
// master declared it dead. It checks that the URLs it held (handed out by the master,
// on hosts it was fetching, requested by no worker yet) are requested by a worker
// within redeliveryLimit.
func (k *killRun) killWorker(mode string) []redelivery {
	k.t.Helper()
	names := make([]string, 0, len(k.workers))
	for n := range k.workers {
		names = append(names, n)
	}
	sort.Strings(names)
	victim := k.workers[names[k.rng.IntN(len(names))]]
	_, k.truthAt = k.sb.Truth().RequestsSince(k.truthAt)
	victim.c.kill()
	killed := time.Now()
	k.deaths[victim.name] = append(k.deaths[victim.name], killed)
	delete(k.workers, victim.name)
	mine := map[string]bool{}
	for _, b := range victim.binds {
		mine[b] = true
	}

	// What the victim held: the hosts it alone fetched in its last second, and of
	// those the URLs the master has handed out with no result yet.
	inProgress, err := inProgressByHost(k.db)
	if err != nil {
		k.fatalf("reading in-progress URLs: %v", err)
	}
	recent := map[string]bool{} // hosts it alone fetched in its last second
	contested := map[string]bool{}
	fetched := map[string]bool{} // by any worker: its result may still be on its way
	for _, r := range k.sb.Truth().Requests() {
		if k.clusterIP[r.IP] != "" {
			fetched[r.URL] = true
		}
		if k.clusterIP[r.IP] != "" && r.Start.After(killed.Add(-time.Second)) {
			if mine[r.IP] {
				recent[r.Host] = true
			} else {
				contested[r.Host] = true
			}
		}
	}
	for host := range contested {
		delete(recent, host)
	}
	left := map[string]map[string]bool{}
	for host := range recent {
		for _, u := range inProgress[host] {
			// A page robots.txt forbids is settled without a request.
			if pi, ok := k.sb.Web().Page(u); ok && pi.Disallowed {
				continue
			}
			if !fetched[u] {
				if left[host] == nil {
					left[host] = map[string]bool{}
				}
				left[host][u] = true
			}
		}
	}

	switch mode {
	case "restart":
		k.startWorker(victim.name, victim.binds...)
	case "replace":
		k.replaced++
		k.startWorker(fmt.Sprintf("r%d", k.replaced), fmt.Sprintf("127.0.1.%d", 2*k.replaced), fmt.Sprintf("127.0.1.%d", 2*k.replaced+1))
	}

	var out []redelivery
	deadline := killed.Add(k.redeliveryLimit())
	for len(left) > 0 && time.Now().Before(deadline) {
		var rs []sandbox.Request
		rs, k.truthAt = k.sb.Truth().RequestsSince(k.truthAt)
		for _, r := range rs {
			switch {
			case k.clusterIP[r.IP] != "" && !r.Start.After(killed): // fetched before the kill, logged late
				delete(left[r.Host], r.URL)
				if len(left[r.Host]) == 0 {
					delete(left, r.Host)
				}
			case r.Start.After(killed) && k.clusterIP[r.IP] != "" && left[r.Host][r.URL]:
				out = append(out, redelivery{r.Host, r.Start.Sub(killed)})
				delete(left, r.Host)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(left) > 0 {
		var lost []string
		for host, urls := range left {
			lost = append(lost, fmt.Sprintf("%s (%d URLs)", host, len(urls)))
		}
		sort.Strings(lost)
		for host := range left { // who fetched the host around the kill
			for _, r := range k.sb.Truth().Requests() {
				if r.Host == host && r.Start.After(killed.Add(-2*time.Second)) && k.clusterIP[r.IP] != "" {
					k.t.Logf("%+v %s (%s) %s", r.Start.Sub(killed).Round(time.Millisecond), r.IP, k.clusterIP[r.IP], r.URL)
				}
			}
		}
		k.events()
		k.fatalf("%v after SIGKILL of worker %s (%s), nobody fetched what it held of %v", k.redeliveryLimit(), victim.name, mode, lost)
	}

	if mode == "restart-after-death" {
		// The master's node table (`stats --json` nodes) shows it dead first.
		for {
			dead := false
			for _, n := range k.peek().Nodes {
				dead = dead || n.Name == victim.name && n.State == view.NodeDead
			}
			if dead {
				break
			}
			if time.Since(killed) > k.redeliveryLimit() {
				k.fatalf("worker %s not shown dead %v after its SIGKILL", victim.name, k.redeliveryLimit())
			}
			time.Sleep(20 * time.Millisecond)
		}
		k.startWorker(victim.name, victim.binds...)
	}
	k.t.Logf("worker %s killed (%s): %d hosts with unfetched URLs, all fetched again by others in time", victim.name, mode, len(out))
	return out
}

// logOverlaps reports hosts two workers fetched at once, other than a killed worker's
// last requests: M1 keeps a host on one worker at a time.
func (k *killRun) logOverlaps(rs []sandbox.Request) {
	byHost := map[string][]sandbox.Request{}
	for _, r := range rs {
		if k.clusterIP[r.IP] != "" {
			byHost[r.Host] = append(byHost[r.Host], r)
		}
	}
	n := 0
	for host, rs := range byHost {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Start.Before(rs[j].Start) })
		busy := map[string]sandbox.Request{} // worker -> its latest request
		for _, r := range rs {
			w := k.clusterIP[r.IP]
			for other, last := range busy {
				if other != w && r.Start.Before(last.End) && !k.dyingAt(other, last.Start) {
					n++
					if n <= 5 {
						k.t.Logf("host %s: %s requested %s while %s was on %s", host, w, r.URL, other, last.URL)
					}
				}
			}
			if r.End.After(busy[w].End) {
				busy[w] = r
			}
		}
	}
	k.t.Logf("%d requests overlapped another worker's on the same host (not counting killed workers' last ones)", n)
}

// dyingAt tells whether worker w was killed within two seconds after t.
func (k *killRun) dyingAt(w string, t time.Time) bool {
	for _, d := range k.deaths[w] {
		if !d.Before(t) && d.Sub(t) < 2*time.Second {
			return true
		}
	}
	return false
}

// explainUnstored logs what the database and the truth log say of pages not stored:
// each URL's state and when it changed, its page row if any, and who requested it.
func (k *killRun) explainUnstored(urls []string) {
	rdb, err := sql.Open("sqlite3", "file:"+k.db+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		return
	}
	defer rdb.Close()
	at := func(ns int64) string { return time.Unix(0, ns).Format("15:04:05.000") }
	for _, u := range urls {
		var state store.State
		var updated, fetched int64
		rdb.QueryRow(`SELECT state, updated_at FROM urls WHERE url = ?`, u).Scan(&state, &updated)
		page := "no page row"
		if rdb.QueryRow(`SELECT fetched_at FROM pages WHERE url = ?`, u).Scan(&fetched) == nil {
			page = "page stored " + at(fetched)
		}
		var reqs []string
		for _, r := range k.sb.Truth().Requests() {
			if r.URL == u {
				reqs = append(reqs, r.Start.Format("15:04:05.000")+" "+r.IP+" ("+k.clusterIP[r.IP]+")")
			}
		}
		k.t.Logf("%s: %s since %s, %s; requested %v", u, state, at(updated), page, reqs)
	}
}
