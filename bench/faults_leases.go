package main

// The fault bench's lease and restart parts: a master and its workers run as an operator
// runs them (`crawlconsole master`, `crawlconsole worker --join`, each a process of
// its own on the built binary), crawling the sandbox web in this process, whose
// server log (the sandbox's truth: every request, its source address, start and
// end) judges them.
//
// Lease (-only lease): three workers, each leaving from its own loopback address;
// mid-crawl the first is stopped (SIGSTOP) for -stop (30 s), then continued
// (SIGCONT). From the server log, over the -after window (a minute) from SIGCONT:
//   - requests_on_lost_hosts: requests the stopped worker sent after SIGCONT on a
//     host another worker had taken over during the stop, while that worker still
//     held it (it sent the host a request later still);
//   - cross_node_overlaps: requests to a host that began while another worker's
//     request to it was still being answered;
//   - host_gap_breaks: hand-offs of a host between workers (one worker's request
//     after another's) with less than the host gap (1/host_rate) between the end of
//     the one and the start of the other.
//
// Restart (-only restart): two workers; mid-crawl (-kill-at pages stored) the
// master is killed (SIGKILL, its embedded NATS server with it) and started again
// on the same --db and address; it runs until idle. restart_duplicate_share: the
// URLs the sandbox answered twice or more (robots.txt aside) ÷ the URLs it
// answered; lost: pages a single-process crawl of the same web stores that the
// master's store lacks; stored_twice: pages the store holds twice.

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
)

// clusterBench is what the distributed scenarios share.
type clusterBench struct {
	bin, dir string
	hb       time.Duration
}

// proc is one crawlconsole process and what it printed.
type proc struct {
	name string
	cmd  *exec.Cmd
	out  lockedBuf
	done chan struct{}
}

func (c *clusterBench) start(name string, args ...string) (*proc, error) {
	p := &proc{name: name, cmd: exec.Command(c.bin, args...), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	return p, nil
}

func (p *proc) signal(s syscall.Signal) { p.cmd.Process.Signal(s) }

// kill ends the process (SIGCONT first: a stopped process takes no SIGKILL until
// continued on some systems' accounting) and waits for it.
func (p *proc) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	p.signal(syscall.SIGCONT)
	p.signal(syscall.SIGKILL)
	<-p.done
}

// waitFor polls cond until it holds, failing after d (a guard, never a measure).
func waitFor(what string, d time.Duration, cond func() bool) error {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("no %s within %v", what, d)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}

// masterArgs are a master's arguments over the sandbox: its seeds, the polite
// config of enginetest at the web's scale with lanes lanes per worker, headless,
// until idle.
func (c *clusterBench) masterArgs(sb *sandbox.Sandbox, db, listen string, lanes int) ([]string, error) {
	o := enginetest.PoliteOptions(sb, "")
	seeds := filepath.Join(c.dir, "seeds.txt")
	if err := os.WriteFile(seeds, []byte(strings.Join(o.Seeds, "\n")+"\n"), 0o644); err != nil {
		return nil, err
	}
	conf := filepath.Join(c.dir, "cluster.yaml")
	yaml := fmt.Sprintf("lanes: {max: %d, delay_min: %s, delay_max: %s}\nhost_rate: %g\nrevisit: {enabled: false}\n",
		lanes, o.Lanes.DelayMin, o.Lanes.DelayMax, o.HostRate)
	if err := os.WriteFile(conf, []byte(yaml), 0o644); err != nil {
		return nil, err
	}
	return []string{"master", "--db", db, "--listen", listen, "--heartbeat", c.hb.String(), "--config", conf,
		"--seeds", seeds, "--headless", "--until-idle", "--allow-private", "127.0.0.0/8", "--dns-server", sb.DNSAddr()}, nil
}

// worker starts worker name leaving from ip, joined to the master at listen.
func (c *clusterBench) worker(sb *sandbox.Sandbox, db, listen, name, ip string) (*proc, error) {
	return c.start(name, "worker", "--join", "nats://"+listen, "--token-file", db+".token", "--name", name,
		"--egress", "bind:"+ip, "--allow-private", "127.0.0.0/8", "--dns-server", sb.DNSAddr())
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// storedPages is how many pages db holds (read beside its writer; 0 on an error).
func storedPages(db string) int64 {
	ro, err := store.OpenReadOnly(db)
	if err != nil {
		return 0
	}
	defer ro.Close()
	c, err := ro.Counts()
	if err != nil {
		return 0
	}
	return c.Pages
}

// startMaster starts a master of 32 lanes over sb on a free address, its store at
// db, and waits until it listens. args start it again (a restart on its --db).
func (c *clusterBench) startMaster(sb *sandbox.Sandbox, db string) (m *proc, listen string, args []string, err error) {
	if listen, err = freeAddr(); err != nil {
		return nil, "", nil, err
	}
	if args, err = c.masterArgs(sb, db, listen, 32); err != nil {
		return nil, "", nil, err
	}
	if m, err = c.start("master", args...); err != nil {
		return nil, "", nil, err
	}
	if err := waitFor("master listening", time.Minute, func() bool { return strings.Contains(m.out.String(), "workers join with") }); err != nil {
		m.kill()
		return nil, "", nil, fmt.Errorf("%v: %s", err, m.out.String())
	}
	return m, listen, args, nil
}

// runLease is the SIGSTOP scenario.
func (c *clusterBench) runLease(stop, after time.Duration, out map[string]any) error {
	cfg := enginetest.SandboxConfig(3, 60)
	cfg.Scale = 2 // a 1 s human gap: the crawl outlasts the stop and the minute after
	sb, err := sandbox.Start(cfg)
	if err != nil {
		return err
	}
	defer sb.Close()
	db := filepath.Join(c.dir, "lease.db")
	m, listen, _, err := c.startMaster(sb, db)
	if err != nil {
		return err
	}
	defer m.kill()
	ips := map[string]string{"w1": "127.0.0.2", "w2": "127.0.0.3", "w3": "127.0.0.4"}
	who := map[string]string{}
	var ws []*proc
	for _, name := range []string{"w1", "w2", "w3"} {
		w, err := c.worker(sb, db, listen, name, ips[name])
		if err != nil {
			return err
		}
		defer w.kill()
		ws = append(ws, w)
		who[ips[name]] = name
	}
	// Stopped once every worker fetches and the crawl is well under way.
	if err := waitFor("all three workers fetching", 2*time.Minute, func() bool {
		seen := map[string]bool{}
		for _, r := range sb.Truth().Requests() {
			seen[who[r.IP]] = true
		}
		return seen["w1"] && seen["w2"] && seen["w3"] && storedPages(db) >= 150
	}); err != nil {
		return err
	}
	stopped := time.Now()
	ws[0].signal(syscall.SIGSTOP)
	fmt.Printf("lease: w1 stopped (SIGSTOP) at %d pages stored, for %v\n", storedPages(db), stop)
	time.Sleep(stop)
	resumed := time.Now()
	ws[0].signal(syscall.SIGCONT)
	end := resumed.Add(after)
	select {
	case <-m.done:
	case <-time.After(time.Until(end)):
	}
	crawlEnded := m.exited()
	rs := sb.Truth().Requests()
	gap := time.Duration(float64(time.Second) / cfg.Scale) // enginetest.PoliteOptions: host_rate = scale
	j := judgeLease(rs, who, "w1", stopped, resumed, end, gap)
	fmt.Printf("lease: w1 continued (SIGCONT) after %v; %d hosts taken over during the stop; in the %v after (crawl ended: %v): "+
		"%d requests from w1 on hosts it no longer held, %d cross-node overlaps, %d host-gap breaks (gap < %v) of %d hand-offs; %d bans\n",
		resumed.Sub(stopped).Round(time.Second), j.lost, after, crawlEnded, j.onLost, j.overlaps, j.gapBreaks, gap, j.handoffs, len(sb.Truth().Bans()))
	for _, ex := range j.examples {
		fmt.Println("  " + ex)
	}
	out["requests_on_lost_hosts"] = j.onLost
	out["cross_node_overlaps"] = j.overlaps
	out["host_gap_breaks"] = j.gapBreaks
	out["lease_handoffs"] = j.handoffs
	out["lease_hosts_taken_over"] = j.lost
	out["lease_stop_s"] = stop.Seconds()
	out["lease_bans"] = len(sb.Truth().Bans())
	return nil
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// leaseJudgement is what the server log says of the stopped worker and its hosts.
type leaseJudgement struct {
	lost                                  int // hosts taken over during the stop
	onLost, overlaps, gapBreaks, handoffs int
	examples                              []string
}

// judgeLease reads the requests rs (source IP -> worker by who) of a crawl whose
// worker stopped was stopped from stoppedAt to resumedAt, over [resumedAt, end).
func judgeLease(rs []sandbox.Request, who map[string]string, stopped string, stoppedAt, resumedAt, end time.Time, gap time.Duration) leaseJudgement {
	var j leaseJudgement
	byHost := map[string][]sandbox.Request{}
	for _, r := range rs {
		if who[r.IP] != "" {
			byHost[r.Host] = append(byHost[r.Host], r)
		}
	}
	held := map[string]bool{}  // hosts the stopped worker fetched before the stop
	taken := map[string]bool{} // of those, fetched by another during the stop
	for host, hrs := range byHost {
		for _, r := range hrs {
			w := who[r.IP]
			switch {
			case w == stopped && r.Start.Before(stoppedAt):
				held[host] = true
			case w != stopped && r.Start.After(stoppedAt) && r.Start.Before(resumedAt):
				taken[host] = true
			}
		}
	}
	in := func(r sandbox.Request) bool { return !r.Start.Before(resumedAt) && r.Start.Before(end) }
	for host, hrs := range byHost {
		sort.Slice(hrs, func(a, b int) bool { return hrs[a].Start.Before(hrs[b].Start) })
		if held[host] && taken[host] {
			j.lost++
			// A request of the stopped worker after SIGCONT while another still held
			// the host: that other requested it later still.
			var lastOther time.Time
			for _, r := range hrs {
				if who[r.IP] != stopped && r.Start.After(lastOther) {
					lastOther = r.Start
				}
			}
			for _, r := range hrs {
				if who[r.IP] == stopped && in(r) && r.Start.Before(lastOther) {
					j.onLost++
					if len(j.examples) < 5 {
						j.examples = append(j.examples, fmt.Sprintf("on a lost host: %s from %s at +%v", r.URL, stopped, r.Start.Sub(resumedAt).Round(time.Millisecond)))
					}
				}
			}
		}
		busy := map[string]time.Time{} // worker -> end of its latest request to the host
		var prev *sandbox.Request
		for i := range hrs {
			r := &hrs[i]
			w := who[r.IP]
			if in(*r) {
				for other, until := range busy {
					if other != w && r.Start.Before(until) {
						j.overlaps++
						if len(j.examples) < 10 {
							j.examples = append(j.examples, fmt.Sprintf("overlap on %s: %s while %s's request ran", host, w, other))
						}
						break
					}
				}
				if prev != nil && who[prev.IP] != w {
					j.handoffs++
					if d := r.Start.Sub(prev.End); d < gap {
						j.gapBreaks++
						if len(j.examples) < 10 {
							j.examples = append(j.examples, fmt.Sprintf("gap break on %s: %s → %s after %v", host, who[prev.IP], w, d.Round(time.Millisecond)))
						}
					}
				}
			}
			if r.End.After(busy[w]) {
				busy[w] = r.End
			}
			prev = r
		}
	}
	return j
}

// runRestart is the master's kill -9 and restart.
func (c *clusterBench) runRestart(killAt int64, out map[string]any) error {
	sb, err := sandbox.Start(enginetest.SandboxConfig(4, 80))
	if err != nil {
		return err
	}
	defer sb.Close()
	db := filepath.Join(c.dir, "restart.db")
	m, listen, args, err := c.startMaster(sb, db)
	if err != nil {
		return err
	}
	defer func() { m.kill() }() // m is the restarted master by then
	for i, name := range []string{"w1", "w2"} {
		w, err := c.worker(sb, db, listen, name, fmt.Sprintf("127.0.0.%d", 2+i))
		if err != nil {
			return err
		}
		defer w.kill()
	}
	if err := waitFor(fmt.Sprintf("%d pages stored", killAt), 5*time.Minute, func() bool { return storedPages(db) >= killAt }); err != nil {
		return err
	}
	m.kill()
	killed := time.Now()
	killedAt := storedPages(db)
	fmt.Printf("restart: master killed (SIGKILL) at %d pages stored; started again on its --db\n", killedAt)
	if m, err = c.start("master", args...); err != nil {
		return err
	}
	select {
	case <-m.done:
	case <-time.After(10 * time.Minute):
		return errors.New("the restarted master did not finish within 10 minutes")
	}
	if code := m.cmd.ProcessState.ExitCode(); code != 0 {
		return fmt.Errorf("the restarted master exited %d: %s", code, firstLine(m.out.String()))
	}
	asked := map[string]int{}
	for _, r := range sb.Truth().Requests() { // before the reference crawl asks them again
		if r.Kind != sandbox.KindRobots {
			asked[r.URL]++
		}
	}
	twice := 0
	for _, n := range asked {
		if n > 1 {
			twice++
		}
	}
	shown := 0
	for _, r := range sb.Truth().Requests() {
		if asked[r.URL] > 1 && shown < 5 {
			shown++
			fmt.Printf("  twice: %s from %s at %+v of the kill\n", r.URL, r.IP, r.Start.Sub(killed).Round(time.Millisecond))
		}
	}
	ro, err := store.OpenReadOnly(db)
	if err != nil {
		return err
	}
	urls, err := ro.PageURLs()
	if evs, err := ro.RecentEvents(20000); err == nil { // the master's account of the restart
		for _, ev := range evs {
			for _, k := range []string{"restarted with", "grace period over", "rejoined holding", "is dead"} {
				if strings.Contains(ev.Msg, k) {
					fmt.Printf("  master %s: %s\n", ev.At.Format("15:04:05.000"), ev.Msg)
				}
			}
		}
	}
	ro.Close()
	if err != nil {
		return err
	}
	stored, storedTwice := map[string]bool{}, 0
	for _, u := range urls {
		if stored[u] {
			storedTwice++
		}
		stored[u] = true
	}
	ref, err := enginetest.ReferenceCrawl(sb, filepath.Join(c.dir, "reference.db"))
	if err != nil {
		return fmt.Errorf("reference crawl: %w", err)
	}
	lost := 0
	for u := range ref {
		if !stored[u] {
			lost++
		}
	}
	share := float64(twice) / float64(max(1, len(asked)))
	fmt.Printf("restart: %d URLs requested, %d of them twice (%.2f%%); %d pages stored (a single-process crawl: %d), %d lost, %d stored twice\n",
		len(asked), twice, 100*share, len(stored), len(ref), lost, storedTwice)
	out["restart_duplicate_share"] = crawlRound(share, 4)
	out["restart_urls"] = len(asked)
	out["restart_duplicates"] = twice
	out["lost"] = lost
	out["stored_twice"] = storedTwice
	return nil
}
