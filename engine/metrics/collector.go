// Package metrics serves a node's crawl figures to Prometheus: a
// prometheus.Collector that reads the engine's own counters, snapshot and histograms
// at scrape time, so monitoring adds no work to the fetch path, and a loopback-only
// (unless asked) HTTP listener for /metrics.
//
// Names follow Prometheus conventions: crawlconsole_ prefix, _total for counters,
// base units in the name (_seconds, _bytes). Each node reports what it owns: a local
// crawl everything; a master the frontier, store, revisit and its workers
// (crawlconsole_cluster_*); a worker its lanes, DNS cache and egress rotation. The
// master's DNS and egress panes sum its live workers' heartbeats, which go down when
// a worker dies, so it does not export them as counters: scrape the workers.
package metrics

import (
	"sort"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crawlconsole/crawlconsole/engine/skips"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Source is what the collector reads: *engine.Engine (local, master or a worker's).
type Source interface {
	Snapshot() view.Snapshot
	Telemetry() view.Telemetry
}

const ns = "crawlconsole"

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(ns+"_"+name, help, labels, nil)
}

// Descriptions of every metric, in the order Collect emits them.
var (
	nodeInfo   = desc("node_info", "The node's role in the crawl: local (one process), master or worker (M4).", "role")
	crawlState = desc("crawl_state", "1 for the crawl's current state, 0 for the others; FAILED: the store failed and the crawl stopped itself.", "state")
	startTime  = desc("crawl_start_time_seconds", "When the crawl started, Unix time.")

	pagesFetched = desc("pages_fetched_total", "Responses received, by HTTP status class (2xx, 3xx, 4xx, 5xx, 1xx, other).", "class")
	pagesStored  = desc("pages_stored_total", "Pages committed to the store.")
	bytesFetched = desc("fetched_bytes_total", "Response body bytes received.")
	refusals     = desc("refusals_total", "Refused fetches: 403/429, ban or captcha pages (a 503 with Retry-After is not counted here; egress_refusals_total counts it).")
	skipped      = desc("skipped_total", "URLs skipped by choice, by reason: robots.txt, noindex, content type, and out-of-scope links (counted per page linking there). Not errors.", "reason")
	errorsTotal  = desc("errors_total", "URLs that ended in a failure, by error kind (skips are apart).", "kind")
	warnings     = desc("warnings_total", "Discovery's document warnings, by kind (discovery_*: malformed XML, invalid dates, ...); no URL failed by them.", "kind")
	urlsQueued   = desc("urls_queued_total", "URLs accepted into the frontier, with those an earlier run left queued or deferred.")
	urlsDone     = desc("urls_done_total", "URLs finished: stored, failed or skipped.")
	urlsDeferred = desc("urls_deferred_total", "URLs set aside for a disabled host, an unreachable robots.txt (once while each waits) or a budget; they come back.")
	robotsWait   = desc("robots_waiting_urls", "URLs waiting for their site's robots.txt to answer (each counted once in errors_total{kind=\"robots_unreachable\"}).")
	robotsSites  = desc("robots_waiting_sites", "Hosts whose URLs wait for their robots.txt to answer.")

	queueURLs   = desc("queue_urls", "URLs waiting for a lane.")
	lanes       = desc("lanes", "Lanes alive, by what they are doing.", "status")
	lanesMax    = desc("lanes_max", "The most lanes allowed at once (lanes.max; a master: its live workers' sum).")
	lanesPeak   = desc("lanes_peak", "The most lanes alive at once so far.")
	pausedHosts = desc("paused_hosts", "Hosts paused by the operator.")

	dnsLookups  = desc("dns_lookups_total", "Host lookups on the fetch path, by how the DNS cache answered (M5).", "result")
	dnsPrefetch = desc("dns_prefetched_total", "Upstream resolutions run ahead of the fetch by the prefetch workers.")
	dnsUpstream = desc("dns_upstream_queries_total", "Upstream resolutions of a host (A and AAAA together).")
	dnsStale    = desc("dns_stale_served_total", "Answers served past their TTL (RFC 8767).")
	dnsEntries  = desc("dns_cache_entries", "Entries in the DNS cache.", "cache")
	dnsWait     = desc("dns_wait_seconds", "Time a fetch waited for its host's addresses; 0 when the cache answered.")

	egressRotations = desc("egress_rotations_total", "Times the node switched egress (M3).")
	egressDisables  = desc("egress_host_disables_total", "Times a host went on the host disable list (M3).")
	egressDisabled  = desc("egress_disabled_hosts", "Hosts on the disable list now.")
	egressRequests  = desc("egress_requests_total", "Requests sent through each egress.", "egress")
	egressRefusals  = desc("egress_refusals_total", "Site bans seen through each egress: 403/429, ban or captcha pages, and 503 with Retry-After (which refusals_total leaves out).", "egress")
	egressResponses = desc("egress_responses_total", "Responses through each egress by HTTP status class (the hosts report's per-egress rows; \"direct\" without rotation).", "egress", "class")

	hostsSeen = desc("hosts", "Hosts of the hosts report (per-host figures are in the console's Hosts pane and stats --hosts, not here: hosts are unbounded), by what their responses say: any (all of them), refusing (a refusal at least), failing (more 4xx and 5xx than 2xx).", "kind")

	revisitRefetches = desc("revisit_refetches_total", "Fetches of pages already stored, 304s included (M2).")
	revisitChanges   = desc("revisit_changes_total", "Refetches whose main text changed (M2).")
	revisitNotMod    = desc("revisit_not_modified_total", "Refetches answered 304 Not Modified (M2).")
	revisitTracked   = desc("revisit_tracked_pages", "Pages with revisit state (M2).")
	revisitFirstPlan = desc("revisit_first_planned_total", "New pages whose first revisit was planned from what their site's pages showed, not revisit.initial (M2).")
	revisitFirstProb = desc("revisit_first_probed_total", "New pages of such sites refetched after revisit.initial all the same, to keep the site's evidence current (M2).")

	discSources   = desc("discovery_sources", "Feeds and sitemaps (indexes too) discovery reads, by kind and whether another source of their site covers them and they are read at max_poll only.", "kind", "state")
	discAnnounced = desc("discovery_announced_total", "URLs feeds and sitemaps listed, every read counted (this process).")
	discHints     = desc("discovery_date_hints_total", "Dates in feeds and sitemaps that moved: followed (the page made due) or ignored (the site's dates are not trusted).", "outcome")
	discUntrusted = desc("discovery_untrusted_sites", "Sites whose lastmod/pubDate dates are ignored: always the serving time, or moved without the content changing.")

	storedByAge = desc("pages_stored_by_age_total", "Pages first stored, by how old their own publication date said they were when stored (age band; undated: the page states none).", "age")

	storeCommit = desc("store_commit_seconds", "Duration of the store writer's batch commits.")
	storeBusy   = desc("store_writer_busy_seconds_total", "Time the store writer spent applying and committing writes.")
	storeQueue  = desc("store_write_queue", "Write operations waiting for the store writer.")

	renderPages     = desc("render_pages_total", "HTML pages given to the headless browser, by outcome: rendered (the DOM was read) or kept_plain (the render failed: time or request cap, navigation away, crash).", "outcome")
	renderRequests  = desc("render_requests_total", "The rendered pages' own requests (scripts, API calls) sent through the lanes.")
	renderSeconds   = desc("render_seconds_total", "Time spent rendering pages.")
	renderContexts  = desc("render_contexts", "Browser contexts open, by state (open, busy).", "state")
	renderPSS       = desc("render_browser_pss_bytes", "Proportional memory of the browser's processes.")
	renderRecycled  = desc("render_contexts_recycled_total", "Browser contexts disposed after a failed render or over the memory cap.")
	renderHost      = desc("render_host_pages_total", "Pages rendered on the hosts with the most renders (at most 20 hosts), by outcome.", "host", "outcome")
	renderHostSecs  = desc("render_host_seconds_total", "Time spent rendering the pages of the hosts with the most renders (at most 20 hosts).", "host")
	renderUnsettled = desc("render_unsettled_total", "Renders of pages that never settled: a polling page read early or at the time cap, or a script that never yielded, ended before the cap.")
	renderHostUns   = desc("render_host_unsettled_total", "Renders of pages that never settled on the hosts with the most renders (at most 20 hosts); such a host's next pages render in half the time.", "host")
	renderBrowser   = desc("render_browser", "The headless browser's state: 1 for the one it is in (running, starting, stopping: the last one is going and the next starts once it is gone, idle: none runs), 0 for the others.", "state")
	renderRestarts  = desc("render_browser_restarts_total", "Browser starts after the first: after render.restart_after renders, over render.memory_mb, or after a browser died or was killed.")
	renderHung      = desc("render_browser_hung_total", "Browsers killed for not answering in render.start_timeout when a session's browser context or a new page was made.")
	renderWaitedOut = desc("render_page_wait_timeouts_total", "Renders that found every browser page busy (render.contexts), none freed for a whole time cap (render.timeout) or all going to other renders for render.start_timeout + render.timeout: their pages kept plain, counted in render_pages_total{outcome=\"kept_plain\"} too.")

	clusterWorkers  = desc("cluster_workers", "Workers known to the master, by state (M4).", "state")
	clusterResults  = desc("cluster_results_committed_total", "Results from each worker committed by the master (M4).", "node")
	clusterLate     = desc("cluster_late_results_total", "Results dropped as already committed (at-least-once delivery, M4).")
	clusterReclaim  = desc("cluster_reclaimed_tasks_total", "Hand-outs the master took back from live workers that held none of them for a lease (M4).")
	clusterRejected = desc("cluster_rejected_messages_total", "Malformed or oversize cluster messages the master refused, by reason.", "reason")
)

var allDescs = []*prometheus.Desc{nodeInfo, crawlState, startTime,
	pagesFetched, pagesStored, bytesFetched, refusals, skipped, errorsTotal, warnings, urlsQueued, urlsDone, urlsDeferred, robotsWait, robotsSites,
	queueURLs, lanes, lanesMax, lanesPeak, pausedHosts,
	dnsLookups, dnsPrefetch, dnsUpstream, dnsStale, dnsEntries, dnsWait,
	egressRotations, egressDisables, egressDisabled, egressRequests, egressRefusals, egressResponses, hostsSeen,
	revisitRefetches, revisitChanges, revisitNotMod, revisitTracked, revisitFirstPlan, revisitFirstProb,
	discSources, discAnnounced, discHints, discUntrusted,
	storedByAge, storeCommit, storeBusy, storeQueue,
	renderPages, renderRequests, renderSeconds, renderContexts, renderPSS, renderRecycled, renderHost, renderHostSecs,
	renderUnsettled, renderHostUns, renderBrowser, renderRestarts, renderHung, renderWaitedOut,
	clusterWorkers, clusterResults, clusterLate, clusterReclaim, clusterRejected}

// Collector is a prometheus.Collector over one node's engine.
type Collector struct{ src Source }

// NewCollector reads src at every scrape.
func NewCollector(src Source) *Collector { return &Collector{src: src} }

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
}

// Collect implements prometheus.Collector: one Snapshot and one Telemetry per scrape.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	s := c.src.Snapshot()
	t := c.src.Telemetry()
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	hist := func(d *prometheus.Desc, h *view.Histogram) {
		ch <- prometheus.MustNewConstHistogram(d, h.Count, h.Sum, h.Buckets)
	}

	gauge(nodeInfo, 1, t.Role)
	for _, st := range []view.State{view.StateStarting, view.StateRunning, view.StatePaused, view.StateStopping, view.StateDone, view.StateFailed,
		view.StateIdle, view.StateDraining} {
		gauge(crawlState, b2f(s.State == st), string(st))
	}
	if !s.StartedAt.IsZero() {
		gauge(startTime, float64(s.StartedAt.UnixNano())/1e9)
	}

	tot := s.Totals
	for _, class := range []string{"1xx", "2xx", "3xx", "4xx", "5xx", "other"} {
		counter(pagesFetched, float64(tot.ByClass[class]), class)
	}
	counter(pagesStored, float64(tot.PagesStored))
	counter(bytesFetched, float64(tot.BytesFetched))
	counter(refusals, float64(tot.Refused))
	for _, k := range skips.Kinds() { // every reason, zeros too: a series that appears late breaks rate()
		counter(skipped, float64(tot.Skipped[k]), k)
	}
	for _, k := range sortedKeys(tot.Errors) {
		counter(errorsTotal, float64(tot.Errors[k]), k)
	}
	for _, k := range sortedKeys(tot.Warnings) {
		counter(warnings, float64(tot.Warnings[k]), k)
	}
	counter(urlsQueued, float64(tot.URLsQueued))
	counter(urlsDone, float64(tot.URLsDone))
	counter(urlsDeferred, float64(tot.Deferred))

	if t.StoredByAge != nil {
		for i, band := range view.AgeBands {
			if i < len(t.StoredByAge) {
				counter(storedByAge, float64(t.StoredByAge[i]), band)
			}
		}
	}

	gauge(queueURLs, float64(s.QueueDepth))
	byStatus := map[view.LaneStatus]int{}
	for _, l := range s.Lanes {
		byStatus[l.Status]++
	}
	for _, st := range []view.LaneStatus{view.LaneFetching, view.LaneWaiting, view.LaneGated, view.LanePaused, view.LaneIdle} {
		gauge(lanes, float64(byStatus[st]), string(st))
	}
	gauge(lanesMax, float64(s.LanesMax))
	gauge(lanesPeak, float64(tot.LanesPeak))
	gauge(pausedHosts, float64(len(s.PausedHosts)))
	gauge(robotsWait, float64(tot.Robots.URLs))
	gauge(robotsSites, float64(tot.Robots.Sites))

	if s.DNS != nil && t.Role != view.RoleMaster {
		d := s.DNS.Stats
		counter(dnsLookups, float64(d.PositiveHits), "positive_hit")
		counter(dnsLookups, float64(d.NegativeHits), "negative_hit")
		counter(dnsLookups, float64(d.Misses), "miss")
		counter(dnsLookups, float64(d.Rejected), "rejected")
		counter(dnsPrefetch, float64(d.Prefetched))
		counter(dnsUpstream, float64(d.UpstreamQueries))
		counter(dnsStale, float64(d.StaleServed))
		gauge(dnsEntries, float64(s.DNS.Hosts), "positive")
		gauge(dnsEntries, float64(s.DNS.NegativeCount), "negative")
	}
	if t.DNSWait != nil {
		hist(dnsWait, t.DNSWait)
	}

	if e := s.Egress; e != nil && t.Role != view.RoleMaster {
		counter(egressRotations, float64(e.Rotations))
		counter(egressDisables, float64(e.HostsDisabled))
		gauge(egressDisabled, float64(len(e.Disabled)))
		for _, row := range e.Egresses {
			if row.Requests == 0 && row.Refusals == 0 && !row.OnNode {
				continue // another node's egress, unused here
			}
			counter(egressRequests, float64(row.Requests), row.Name)
			counter(egressRefusals, float64(row.Refusals), row.Name)
		}
	}

	if h := s.Hosts; h != nil {
		classes := [view.StatusClassCount]string{"other", "1xx", "2xx", "3xx", "4xx", "5xx"}
		for _, e := range h.Egresses {
			for c, n := range e.Classes {
				if n > 0 {
					counter(egressResponses, float64(n), e.Name, classes[c])
				}
			}
		}
		var refusing, failing float64
		for i := range h.Hosts.Len() {
			r := h.Hosts.At(i)
			refusing += b2f(r.Refused > 0)
			failing += b2f(r.Classes[view.Class4xx]+r.Classes[view.Class5xx] > r.Classes[view.Class2xx])
		}
		gauge(hostsSeen, float64(h.Hosts.Len()), "any")
		gauge(hostsSeen, refusing, "refusing")
		gauge(hostsSeen, failing, "failing")
	}

	if r := s.Revisit; r != nil {
		counter(revisitRefetches, float64(r.Refetches))
		counter(revisitChanges, float64(r.Changes))
		counter(revisitNotMod, float64(r.NotModified))
		gauge(revisitTracked, float64(r.Tracked))
		counter(revisitFirstPlan, float64(r.FirstPlanned))
		counter(revisitFirstProb, float64(r.FirstProbed))
	}

	if t.Role != view.RoleWorker { // the frontier side reads feeds and sitemaps
		var announced, followed, ignored, untrusted float64
		sources := map[[2]string]float64{}
		for _, d := range s.Discovery {
			announced += float64(d.Found)
			followed += float64(d.Hints)
			ignored += float64(d.Ignored)
			untrusted += b2f(!d.DatesTrusted)
			for kind, list := range map[string][]string{"feed": d.Feeds, "sitemap": d.Sitemaps} {
				for _, u := range list {
					state := "polled"
					if _, ok := d.Covered[u]; ok {
						state = "covered"
					}
					sources[[2]string{kind, state}]++
				}
			}
		}
		for _, kind := range []string{"feed", "sitemap"} {
			for _, state := range []string{"polled", "covered"} {
				gauge(discSources, sources[[2]string{kind, state}], kind, state)
			}
		}
		counter(discAnnounced, announced)
		counter(discHints, followed, "followed")
		counter(discHints, ignored, "ignored")
		gauge(discUntrusted, untrusted)
	}

	if t.StoreCommit != nil {
		hist(storeCommit, t.StoreCommit)
		counter(storeBusy, t.StoreBusy.Seconds())
		gauge(storeQueue, float64(t.StoreQueue))
	}

	if r := t.Render; r != nil {
		counter(renderPages, float64(r.Renders), "rendered")
		counter(renderPages, float64(r.Failed), "kept_plain")
		counter(renderRequests, float64(r.Requests))
		counter(renderSeconds, r.Seconds)
		gauge(renderContexts, float64(r.Contexts), "open")
		gauge(renderContexts, float64(r.Busy), "busy")
		gauge(renderPSS, float64(r.PSSMB)*1024*1024)
		counter(renderRecycled, float64(r.Recycled))
		counter(renderUnsettled, float64(r.Unsettled))
		state := "idle"
		switch {
		case r.Running:
			state = "running"
		case r.Starting:
			state = "starting"
		case r.Stopping:
			state = "stopping"
		}
		for _, s := range []string{"idle", "running", "starting", "stopping"} {
			gauge(renderBrowser, b2f(s == state), s)
		}
		counter(renderRestarts, float64(r.Restarts))
		counter(renderHung, float64(r.Hung))
		counter(renderWaitedOut, float64(r.WaitedOut))
		for _, h := range r.Hosts {
			counter(renderHost, float64(h.Renders), h.Host, "rendered")
			counter(renderHost, float64(h.Failed), h.Host, "kept_plain")
			counter(renderHostSecs, h.Seconds, h.Host)
			counter(renderHostUns, float64(h.Unsettled), h.Host)
		}
	}

	if cl := t.Cluster; cl != nil {
		states := map[view.NodeState]int{}
		for _, name := range sortedKeys(cl.Nodes) {
			n := cl.Nodes[name]
			states[n.State]++
			counter(clusterResults, float64(n.Results), name)
		}
		for _, st := range []view.NodeState{view.NodeActive, view.NodePaused, view.NodeLeaving, view.NodeDead, view.NodeLeft} {
			gauge(clusterWorkers, float64(states[st]), string(st))
		}
		counter(clusterLate, float64(cl.LateResults))
		counter(clusterReclaim, float64(cl.Reclaimed))
		for _, k := range sortedKeys(cl.Rejected) {
			counter(clusterRejected, float64(cl.Rejected[k]), k)
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
