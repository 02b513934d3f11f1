// Package enginetest is what tests of the engine and of its front ends share: a
// sandbox web and the polite crawl options for it, a crawl started and waited for
// to its end, the page set a crawl stored, and waits on a condition.
//
// Tests wait on events, never on wall-clock margins: every wait here polls a
// condition and fails only after a generous deadline, a guard against a test that
// would otherwise hang, not a measure of speed. The engine's own in-package tests
// cannot import this package (it imports the engine); they keep one helper of each
// kind in engine's test files.
package enginetest

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/enginetest/patience"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
)

// Patience is how long a wait lasts before it fails the test (patience.Wait).
const Patience = patience.Wait

// CrawlPatience is how long a whole crawl of a test web may take before the test
// fails (patience.Crawl).
const CrawlPatience = patience.Crawl

// SandboxConfig is the sandbox web the cluster and politeness tests crawl: scale
// 50 (the anti-bot gap is 40 ms), no faults, no DNS failures.
func SandboxConfig(seed int64, hosts int) sandbox.Config {
	cfg := sandbox.DefaultConfig()
	cfg.Seed, cfg.Hosts, cfg.Scale = seed, hosts, 50
	cfg.Faults.Shares = nil
	cfg.DNS.NXDomainShare, cfg.DNS.ServFailShare, cfg.DNS.TimeoutShare = 0, 0, 0
	return cfg
}

// StartSandbox starts a sandbox with cfg, closed with the test.
func StartSandbox(t testing.TB, cfg sandbox.Config) *sandbox.Sandbox {
	t.Helper()
	sb, err := sandbox.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

// PoliteOptions are the crawl settings of a sandbox's every site into db: lane
// pauses of 1.25..2 anti-bot gaps at the web's scale, the host rate and the
// adaptive politeness at that scale (AtWebPace), the sandbox's DNS, no revisits.
func PoliteOptions(sb *sandbox.Sandbox, db string) config.Options {
	cfg := sb.Config()
	gap := time.Duration(float64(cfg.AntiBot.HumanGap) / cfg.Scale)
	o := DefaultOptions()
	for _, s := range sb.Info().Sites {
		o.Seeds = append(o.Seeds, s.Entry)
	}
	o.DB = db
	o.DNSServers = []string{sb.DNSAddr()}
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Lanes.Max = 16
	o.Lanes.DelayMin, o.Lanes.DelayMax = gap*5/4, gap*2
	o.HostRate = cfg.Scale
	AtWebPace(&o, cfg.Scale)
	o.Revisit.Enabled = false
	return o
}

// AtWebPace sets o's adaptive politeness (its back-off, forgiveness and latency
// cap) and robots.txt's retry to a web that runs scale times faster than real
// time, as its lane pauses and host rate already are: a sandbox's minute is
// 1/scale of one. Left at their real-time defaults, one overload signal (a 429, a
// timeout, or three slow answers on a starved box) held a host for a real minute,
// scale minutes of the web's, and a test spent them waiting.
func AtWebPace(o *config.Options, scale float64) {
	if !(scale > 1) {
		return
	}
	o.Politeness = o.Politeness.Scaled(scale)
	o.Etiquette = o.Etiquette.Scaled(scale)
}

// TestWebURLs is the Bloom filter's expected URLs for a test's web (thousands of
// URLs at most): the default's ten million take 12 MB, which a test process that
// starts hundreds of crawls zeroes again for each (some 5% of the engine tests' CPU);
// sized for 100,000 the filter takes 120 kB and still gives no false positive.
const TestWebURLs = 100_000

// DefaultOptions are a test crawl's defaults: config.DefaultOptions with the Bloom
// filter sized for a test's web (TestWebURLs). Set here, before the test's own
// changes, so that a filter size the test sets is the one it gets, the product's
// default included.
func DefaultOptions() config.Options {
	o := config.DefaultOptions()
	o.Dedupe.ExpectedURLs = TestWebURLs
	return o
}

// Start creates and starts a crawl with o, closed with the test.
func Start(t testing.TB, o config.Options) *engine.Engine {
	t.Helper()
	e, err := engine.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.Start(); err != nil {
		t.Fatal(err)
	}
	return e
}

// WaitDone waits until e has nothing left to fetch, failing the test after within.
func WaitDone(t testing.TB, e *engine.Engine, within time.Duration) {
	t.Helper()
	select {
	case <-e.Done():
	case <-time.After(within):
		t.Fatalf("crawl not done after %v: %+v", within, e.Stats())
	}
}

// CrawlToDone starts a crawl with o and waits until it has nothing left to fetch
// (CrawlPatience at most); the crawl is closed with the test.
func CrawlToDone(t testing.TB, o config.Options) *engine.Engine {
	t.Helper()
	e := Start(t, o)
	WaitDone(t, e, CrawlPatience)
	return e
}

// Crawl runs a crawl with o to its end and closes it, for a goroutine beside the
// test's own (it reports instead of failing the test).
func Crawl(o config.Options) error {
	e, err := engine.New(o)
	if err != nil {
		return err
	}
	if err := e.Start(); err != nil {
		e.Close()
		return err
	}
	select {
	case <-e.Done():
	case <-time.After(CrawlPatience):
		e.Close()
		return fmt.Errorf("crawl not done after %v: %+v", CrawlPatience, e.Stats())
	}
	return e.Close()
}

// PageSet is the set of page URLs stored in db, read-only beside any writer; a
// page stored twice is an error.
func PageSet(db string) (map[string]bool, error) {
	st, err := store.OpenReadOnly(db)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	urls, err := st.PageURLs()
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(urls))
	for _, u := range urls {
		if out[u] {
			return nil, fmt.Errorf("%s: page %s stored twice", db, u)
		}
		out[u] = true
	}
	return out, nil
}

// StoredSet is PageSet failing the test on an error.
func StoredSet(t testing.TB, db string) map[string]bool {
	t.Helper()
	s, err := PageSet(db)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// WaitFor polls cond until it holds, failing the test after Patience.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	WaitWithin(t, Patience, what, cond)
}

// WaitWithin polls cond until it holds, failing the test after within: for a
// deadline longer than Patience (a whole crawl), or one the test's story names.
func WaitWithin(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitSnapshot polls e's snapshot until cond holds, failing the test after Patience.
func WaitSnapshot(t testing.TB, e *engine.Engine, what string, cond func(view.Snapshot) bool) {
	t.Helper()
	WaitFor(t, what, func() bool { return cond(e.Snapshot()) })
}

// ReferenceEgresses are the source addresses of ReferenceCrawl; the workers of a
// cluster under test never use them, so the sandbox's anti-bot rules (which judge
// each address on its own) let the reference run beside the cluster.
var ReferenceEgresses = []string{"127.0.0.8", "127.0.0.9"}

// ReferenceCrawl crawls the whole sandbox in this process, uninterrupted, with
// PoliteOptions from ReferenceEgresses into db, and returns its stored page set:
// what a distributed or interrupted crawl of the same web must store.
func ReferenceCrawl(sb *sandbox.Sandbox, db string) (map[string]bool, error) {
	if err := Crawl(referenceOptions(sb, db)); err != nil {
		return nil, err
	}
	return PageSet(db)
}

func referenceOptions(sb *sandbox.Sandbox, db string) config.Options {
	o := PoliteOptions(sb, db)
	for _, ip := range ReferenceEgresses {
		o.Egress = append(o.Egress, "bind:"+ip)
	}
	o.Rotation.PerNode = 0 // all of them at once
	return o
}

// Reference is a ReferenceCrawl running beside the test's own crawl of the same
// sandbox: the paced crawls wait side by side instead of one after the other.
type Reference struct {
	e  *engine.Engine
	db string
}

// StartReference starts the reference crawl of sb; it is closed with the test,
// before the sandbox when sb was started first. Requests from ReferenceEgresses
// in the sandbox's truth log are its own.
func StartReference(t testing.TB, sb *sandbox.Sandbox) *Reference {
	t.Helper()
	db := filepath.Join(t.TempDir(), "reference.db")
	return &Reference{e: Start(t, referenceOptions(sb, db)), db: db}
}

// Pages waits for the reference crawl to end (CrawlPatience at most), closes it
// and returns its stored page set.
func (r *Reference) Pages(t testing.TB) map[string]bool {
	t.Helper()
	WaitDone(t, r.e, CrawlPatience)
	if err := r.e.Close(); err != nil {
		t.Fatalf("reference crawl: %v", err)
	}
	return StoredSet(t, r.db)
}

// IsReference says whether ip is one of ReferenceEgresses.
func IsReference(ip string) bool { return slices.Contains(ReferenceEgresses, ip) }
