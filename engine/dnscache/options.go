package dnscache

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"

	"github.com/miekg/dns"
)

// Options configures a Cache. Zero fields take the value DefaultOptions gives them, so
// callers set only what they mean to change (defaults → file → flags, nothing else).
type Options struct {
	// Servers are the upstream DNS servers, "ip" or "ip:port" (port 53 if omitted),
	// tried in turn when one fails (--dns-server). Empty: read from ResolvConf.
	Servers []string
	// ResolvConf is the resolv.conf read when Servers is empty.
	ResolvConf string
	// HostsFile is the hosts file whose names are answered before any server is
	// asked, as the box's other clients do (and localhost is always the loopback).
	HostsFile string
	// Timeout bounds one DNS exchange with one server (UDP, or TCP after truncation).
	Timeout time.Duration
	// SkipAAAA queries only A records (an IPv4-only crawl box gains nothing from AAAA).
	SkipAAAA bool

	// SlowThreshold splits answers (seed 004): a success resolved faster goes to the
	// positive cache, a slower one (or any failure) to the negative cache.
	SlowThreshold time.Duration
	// MinTTL and MaxTTL clamp the TTL of answers with addresses.
	MinTTL, MaxTTL time.Duration
	// NegMinTTL and NegMaxTTL clamp the RFC 2308 TTL of NXDOMAIN / no-address answers.
	NegMinTTL, NegMaxTTL time.Duration
	// RetryBase and RetryMax bound the jittered exponential backoff after a transient
	// failure (SERVFAIL, timeout, refused, malformed, unreachable): step n waits a random
	// time in [d/2, d] with d = min(RetryBase·2^(n-1), RetryMax).
	RetryBase, RetryMax time.Duration

	// PerDomainCap is the most hosts kept under one registered domain; above it, hosts
	// whose last access is older than the domain's median are dropped (M5).
	PerDomainCap int
	// GlobalCap is the most hosts kept in the positive cache; above it, expired hosts
	// and then the least recently used tenth are dropped.
	GlobalCap int
	// NegativeCap is the most entries kept in the negative cache; above it, the
	// lowest-weight tenth is dropped.
	NegativeCap int
	// NegHalfLife is how fast an idle negative entry loses weight (weight halves per
	// NegHalfLife without access); see weight() for the formula.
	NegHalfLife time.Duration
	// NegEvictWeight: expired negative entries lighter than this are evicted by the
	// periodic sweep.
	NegEvictWeight float64

	// MaxWorkers caps the prefetch worker pool (M5: M workers from N waiting hosts).
	// The pool must keep up with new hosts plus the refreshes of every queued host's
	// answer: about M / (upstream answer time) resolutions per second. A 10,000-host
	// crawl of the scaled sandbox (2 s TTLs, 130 ms answers) needs ~2,000/s at peaks:
	// with 64 or 256 workers refreshes landed late and lanes waited (bench dns); 512
	// (~3,900/s) kept up. The pool only grows that large for a backlog of 8×M hosts.
	MaxWorkers int
	// HostsPerWorker sizes the pool: M = ceil(N / HostsPerWorker), 1 ≤ M ≤ MaxWorkers.
	HostsPerWorker int
	// RefreshAhead is the last fraction of an entry's TTL in which it counts as near
	// expiry and is refreshed ahead of time, if StillNeeded says the host is still needed.
	// The window is widened to a sweep period plus the upstream's p99 answer time when
	// that is longer (short TTLs), never past half the TTL.
	RefreshAhead float64
	// SweepEvery is how often expired entries are evicted and near-expiry entries
	// refreshed. Zero: min(10 s, MinTTL·RefreshAhead/2), at least 50 ms.
	SweepEvery time.Duration

	// StaleFor is how long past its TTL a positive answer may still be served when
	// upstream fails (RFC 8767 serve-stale, 24 h there).
	StaleFor time.Duration
	// StaleRetry is the least time between two background retries of a host being
	// served stale (RFC 8767 failure recheck timer, 30 s there).
	StaleRetry time.Duration

	// StillNeeded reports whether a host still has queued URLs; the engine provides it.
	// Near-expiry entries are refreshed only for hosts it accepts. Nil: no refresh-ahead
	// by the sweep, refresh-ahead on access only.
	StillNeeded func(host string) bool
	// Held reports whether the operator holds a host (paused, disabled): it gets
	// no request of any kind, a DNS query included, so its name is neither
	// prefetched nor refreshed ahead while held; the engine queues it again as
	// the hold ends (Prefetch). A lookup on the fetch path is answered as ever
	// (no lane asks for a held host). Like StillNeeded, never called under the
	// cache's lock. Nil: no host is held.
	Held func(host string) bool
	// Now is the clock for TTLs, expiry and last access (tests inject a fake one).
	// Latencies (resolve time, fetch-path wait) are always measured on the real clock.
	Now func() time.Time
}

// DefaultOptions returns the defaults: real-crawl TTL bounds (5 min..6 h), RFC 2308
// negative bounds (60 s..1 h), RFC 8767 serve-stale (24 h, retry every 30 s).
func DefaultOptions() Options {
	return Options{
		ResolvConf:     "/etc/resolv.conf",
		HostsFile:      "/etc/hosts",
		Timeout:        2 * time.Second,
		SlowThreshold:  500 * time.Millisecond,
		MinTTL:         5 * time.Minute,
		MaxTTL:         6 * time.Hour,
		NegMinTTL:      60 * time.Second,
		NegMaxTTL:      time.Hour,
		RetryBase:      5 * time.Second,
		RetryMax:       5 * time.Minute,
		PerDomainCap:   1000,
		GlobalCap:      200_000,
		NegativeCap:    100_000,
		NegHalfLife:    10 * time.Minute,
		NegEvictWeight: 0.25,
		MaxWorkers:     512,
		HostsPerWorker: 8,
		RefreshAhead:   0.1,
		StaleFor:       24 * time.Hour,
		StaleRetry:     30 * time.Second,
		Now:            time.Now,
	}
}

// withDefaults fills zero fields from DefaultOptions and checks the rest.
func (o Options) withDefaults() (Options, error) {
	d := DefaultOptions()
	fillDur := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	fillInt := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	if o.ResolvConf == "" {
		o.ResolvConf = d.ResolvConf
	}
	if o.HostsFile == "" {
		o.HostsFile = d.HostsFile
	}
	fillDur(&o.Timeout, d.Timeout)
	fillDur(&o.SlowThreshold, d.SlowThreshold)
	fillDur(&o.MinTTL, d.MinTTL)
	fillDur(&o.MaxTTL, d.MaxTTL)
	fillDur(&o.NegMinTTL, d.NegMinTTL)
	fillDur(&o.NegMaxTTL, d.NegMaxTTL)
	fillDur(&o.RetryBase, d.RetryBase)
	fillDur(&o.RetryMax, d.RetryMax)
	fillInt(&o.PerDomainCap, d.PerDomainCap)
	fillInt(&o.GlobalCap, d.GlobalCap)
	fillInt(&o.NegativeCap, d.NegativeCap)
	fillDur(&o.NegHalfLife, d.NegHalfLife)
	if o.NegEvictWeight <= 0 {
		o.NegEvictWeight = d.NegEvictWeight
	}
	fillInt(&o.MaxWorkers, d.MaxWorkers)
	fillInt(&o.HostsPerWorker, d.HostsPerWorker)
	if o.RefreshAhead <= 0 || o.RefreshAhead >= 1 {
		o.RefreshAhead = d.RefreshAhead
	}
	fillDur(&o.StaleFor, d.StaleFor)
	fillDur(&o.StaleRetry, d.StaleRetry)
	if o.Now == nil {
		o.Now = d.Now
	}
	if o.SweepEvery <= 0 {
		o.SweepEvery = min(10*time.Second, time.Duration(float64(o.MinTTL)*o.RefreshAhead/2))
		o.SweepEvery = max(o.SweepEvery, 50*time.Millisecond)
	}
	if o.MaxTTL < o.MinTTL {
		return o, fmt.Errorf("dnscache: MaxTTL %v below MinTTL %v", o.MaxTTL, o.MinTTL)
	}
	if o.NegMaxTTL < o.NegMinTTL {
		return o, fmt.Errorf("dnscache: NegMaxTTL %v below NegMinTTL %v", o.NegMaxTTL, o.NegMinTTL)
	}
	if o.RetryMax < o.RetryBase {
		return o, fmt.Errorf("dnscache: RetryMax %v below RetryBase %v", o.RetryMax, o.RetryBase)
	}
	servers := o.Servers
	if len(servers) == 0 {
		// No server configured and none in resolv.conf is not fatal: lookups then fail
		// with kind "no_servers" and the crawl goes on.
		if cfg, err := dns.ClientConfigFromFile(o.ResolvConf); err == nil {
			for _, s := range cfg.Servers {
				servers = append(servers, net.JoinHostPort(s, cfg.Port))
			}
		}
	}
	o.Servers = make([]string, 0, len(servers))
	for _, s := range servers {
		addr, err := serverAddr(s)
		if err != nil {
			return o, err
		}
		o.Servers = append(o.Servers, addr)
	}
	return o, nil
}

// serverAddr turns "ip" or "ip:port" (IPv6 in brackets with a port) into "ip:port".
func serverAddr(s string) (string, error) {
	s = strings.TrimSpace(s)
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.String(), nil
	}
	bare := s
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		bare = s[1 : len(s)-1]
	}
	if a, err := netip.ParseAddr(bare); err == nil {
		return netip.AddrPortFrom(a.Unmap(), 53).String(), nil
	}
	return "", fmt.Errorf("dnscache: DNS server %q is not an IP address or IP:port", s)
}
