package main

// Who spends the CPU of a distributed crawl run in one process: the master, the
// workers, the NATS server and the sandbox each start under their own pprof label, and
// goroutines inherit the labels of the goroutine that starts them, so a CPU profile of
// the run splits by role. The master's store writer (one goroutine, serial by design)
// is found by its loop on the stack: the profile's stand-in for Store.WriterBusy, which
// the master engine does not expose.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/google/pprof/profile"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/embedded"
	"github.com/crawlconsole/crawlconsole/engine/config"
)

// The role label's values; a sample without one ran in a goroutine started by the
// runtime (GC background marking, timers) or by the benchmark itself.
const (
	roleLabel   = "role"
	roleMaster  = "master"
	roleWorker  = "worker"
	roleNATS    = "nats"
	roleSandbox = "sandbox"
	roleEngine  = "engine" // the in-process crawl (engine.New)
	roleOther   = "unlabelled"
)

// distRoles is the order roles are printed in.
var distRoles = []string{roleMaster, roleWorker, roleNATS, roleEngine, roleSandbox, roleOther}

// writerLoop is the store writer goroutine's loop: every sample with it on the stack
// is the writer applying, committing or running post-commit callbacks, which is what
// Store.WriterBusy counts (less any wait for a CPU or for the disk).
const writerLoop = "/store.(*writer).run"

// resultHandler is the master's handler of worker results. JetStream's Consume calls
// it from one goroutine, so it is serial like the writer: decoding, fingerprinting,
// compressing and link extraction happen there before the writer commits.
const resultHandler = "/engine.(*masterRuntime).onResult"

// Transport costs are told by the innermost non-standard-library function on the
// stack: the wire codec (JSON today) or the NATS client (publishing, flushing, reading).
const (
	wireCodec  = "github.com/crawlconsole/crawlconsole/engine/cluster.En" // Encode, and Decode below
	wireCodec2 = "github.com/crawlconsole/crawlconsole/engine/cluster.De"
	natsClient = "github.com/nats-io/nats%2ego" // the profile escapes the dot of nats.go
	natsJS     = "github.com/nats-io/nats.go/jetstream"
)

// roleCPU is one run's CPU time by role, from its profile.
type roleCPU struct {
	byRole map[string]time.Duration
	writer time.Duration // the master's (or the in-process engine's) store writer
	result time.Duration // the master's result handler
	codec  time.Duration // encoding and decoding wire messages (master and workers)
	client time.Duration // the NATS client's own work (master and workers)
	total  time.Duration
}

// labelled runs f with the role label added to ctx's labels: everything f starts
// carries it.
func labelled(ctx context.Context, role string, f func(ctx context.Context)) {
	pprof.Do(ctx, pprof.Labels(roleLabel, role), f)
}

// runProfile is a CPU profile of one run, kept in memory.
type runProfile struct {
	buf bytes.Buffer
	on  bool
}

// startRunProfile starts profiling this process; stop with (*runProfile).stop.
func startRunProfile() (*runProfile, error) {
	p := &runProfile{}
	if err := pprof.StartCPUProfile(&p.buf); err != nil {
		return nil, err
	}
	p.on = true
	return p, nil
}

// stop ends the profile and parses it.
func (p *runProfile) stop() (*profile.Profile, error) {
	if p.on {
		pprof.StopCPUProfile()
		p.on = false
	}
	return profile.Parse(&p.buf)
}

// cpuByRole sums a CPU profile's samples by role label and finds the store writer.
func cpuByRole(p *profile.Profile) (roleCPU, error) {
	idx := -1
	for i, st := range p.SampleType {
		if st.Type == "cpu" && st.Unit == "nanoseconds" {
			idx = i
		}
	}
	if idx < 0 {
		return roleCPU{}, fmt.Errorf("not a CPU profile: sample types %v", p.SampleType)
	}
	out := roleCPU{byRole: map[string]time.Duration{}}
	for _, s := range p.Sample {
		d := time.Duration(s.Value[idx])
		role := roleOther
		if v := s.Label[roleLabel]; len(v) > 0 {
			role = v[0]
		}
		out.byRole[role] += d
		out.total += d
		if onStack(s, writerLoop) {
			out.writer += d
		}
		if onStack(s, resultHandler) {
			out.result += d
		}
		switch f := innermostModuleFunc(s); {
		case strings.HasPrefix(f, wireCodec) || strings.HasPrefix(f, wireCodec2):
			out.codec += d
		case strings.HasPrefix(f, natsClient) || strings.HasPrefix(f, natsJS):
			out.client += d
		}
	}
	return out, nil
}

// onStack tells whether a function whose name ends with suffix is on the sample's stack.
func onStack(s *profile.Sample, suffix string) bool {
	for _, loc := range s.Location {
		for _, ln := range loc.Line {
			if ln.Function != nil && strings.HasSuffix(ln.Function.Name, suffix) {
				return true
			}
		}
	}
	return false
}

// innermostModuleFunc is the innermost function on the sample's stack that is not in
// the standard library (its path starts with a domain), or "".
func innermostModuleFunc(s *profile.Sample) string {
	for _, loc := range s.Location {
		for _, ln := range loc.Line {
			if ln.Function == nil {
				continue
			}
			name := ln.Function.Name
			if first, _, slash := strings.Cut(name, "/"); slash && strings.Contains(first, ".") {
				return name
			}
		}
	}
	return ""
}

// writeMergedProfile writes the runs' profiles as one file (-cpuprofile); each run's
// samples carry its "run" label, for pprof -tagfocus.
func writeMergedProfile(path string, ps []*profile.Profile) error {
	if path == "" || len(ps) == 0 {
		return nil
	}
	m, err := profile.Merge(ps)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := m.Write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// distCluster is a master and n workers over an embedded NATS server in this process,
// built as cli.StartLocalCluster builds them (same calls, same order), except that the
// server, the master and the workers each start under their own role label: the
// labels are what tell the master's CPU from the workers' in the profile, and
// StartLocalCluster starts them all from one goroutine.
type distCluster struct {
	master  *engine.Engine
	workers []*engine.Worker
	srv     *embedded.Server
	conns   []*cluster.Conn
	dir     string
}

// startDistCluster starts the server, the master for opts (started) and n workers,
// worker i leaving from binds(i).
func startDistCluster(ctx context.Context, opts config.Options, n int, binds func(i int) []string, hb time.Duration) (*distCluster, error) {
	dir, err := os.MkdirTemp("", "bench-distributed-nats-")
	if err != nil {
		return nil, err
	}
	var raw [16]byte
	rand.Read(raw[:])
	token := hex.EncodeToString(raw[:])
	c := &distCluster{dir: dir}
	fail := func(err error) (*distCluster, error) {
		c.close()
		return nil, err
	}
	labelled(ctx, roleNATS, func(context.Context) {
		c.srv, err = embedded.Start(embedded.Options{Listen: "127.0.0.1:0", StoreDir: dir, Token: token})
	})
	if err != nil {
		return fail(err)
	}
	connect := func(name string) (*cluster.Conn, error) { return c.connect(name, token) }
	labelled(ctx, roleMaster, func(context.Context) {
		var conn *cluster.Conn
		if conn, err = connect("master"); err != nil {
			return
		}
		if c.master, err = engine.NewMaster(opts, config.MasterOptions{Conn: conn, HeartbeatEvery: hb}); err != nil {
			return
		}
		err = c.master.Start()
	})
	if err != nil {
		return fail(err)
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("w%d", i+1)
		labelled(ctx, roleWorker, func(context.Context) {
			var conn *cluster.Conn
			if conn, err = connect(name); err != nil {
				return
			}
			var egress []string
			for _, b := range binds(i) {
				egress = append(egress, "bind:"+b)
			}
			var w *engine.Worker
			w, err = engine.StartWorker(config.WorkerOptions{Conn: conn, Node: name, Egress: egress, AllowPrivate: opts.AllowPrivate})
			if err == nil {
				c.workers = append(c.workers, w)
			}
		})
		if err != nil {
			return fail(err)
		}
	}
	return c, nil
}

// connect opens a client connection named name to the cluster's server and keeps it
// for close.
func (c *distCluster) connect(name, token string) (*cluster.Conn, error) {
	conn, err := cluster.Connect(c.srv.ClientURL(), cluster.ClientOptions{Name: name, Token: token})
	if err == nil {
		c.conns = append(c.conns, conn)
	}
	return conn, err
}

// close stops the workers, then the master, then the server (cli.LocalCluster.Close).
func (c *distCluster) close() error {
	for _, w := range c.workers {
		w.Close()
	}
	var err error
	if c.master != nil {
		err = c.master.Close()
	}
	for _, conn := range c.conns {
		conn.Close()
	}
	if c.srv != nil {
		c.srv.Shutdown()
	}
	os.RemoveAll(c.dir)
	return err
}

// workerBinds gives worker i its own two loopback addresses: 127.0.0.(2+2i) and
// 127.0.0.(3+2i), as the demo does.
func workerBinds(i int) []string {
	return []string{fmt.Sprintf("127.0.0.%d", 2+2*i), fmt.Sprintf("127.0.0.%d", 3+2*i)}
}
