// Package engine is crawlconsole's crawl engine. Everything above it (CLI, console,
// SSH server) runs a crawl through this package's API: New, NewMaster, StartWorker,
// Start, Done, Stop, Close, Stats and the Control interface (snapshot, events,
// pause/resume, lanes, rebalance, steering), with the options from package config and
// the snapshot's types from package view.
//
// The crawler has one job: fetch as fast as possible from a few egress addresses
// without being recognised as a bot, and keep what it fetched fresh. Five mechanisms,
// M1 to M5, do that. They come from five published crawler patents, which the code
// cites as "seed 000" to "seed 004" (a step such as "seed 003 step 3-2-3" is that
// patent's numbering):
//
//	seed 000  adjacency lanes                                  M1
//	seed 001  adaptive revisit                                 M2
//	seed 002  distributed crawl with a URL dedupe              M4 (and the dedupe)
//	seed 003  egress rotation, site/keyword scheduling and     M3, and M4's assignment,
//	          load balancing over nodes                        membership and balancing
//	seed 004  DNS prefetch cache                               M5
//
// Where the code departs from a seed, the comment there says so and why.
//
// # M1 adjacency lanes (package lanes)
//
// A site flags an address as a bot when it requests many adjacent pages in a short
// window: pages on one host, or pages linked from one parent page. Every task carries
// its URL and the hash of its parent page's URL. A task joins the lane that holds its
// host, else the lane that holds its parent (the host match wins), else it opens a new
// lane up to lanes.max, else it waits. A lane fetches serially with a random pause
// (lanes.delay_min..delay_max) longer than a human click interval; lanes run in
// parallel, and a lane that runs dry retires. Adjacency is judged per egress address,
// since that is what a server sees. lanes.Board binds tasks to lanes; lanes.Gate keeps
// adjacent requests from one address apart across lanes and caps each host's rate.
// lanes.Runner runs each lane (package lanes); package lanes/local joins the lanes
// to a crawl: it is their lanes.Front, and this process's crew (below).
//
// # M2 adaptive revisit (package revisit)
//
// Each stored page keeps t (time since its first fetch), x (changes seen, from 1),
// last, next and a 64-bit SimHash of its main text. After a fetch, t grows by the time
// since last; a Hamming distance over revisit.threshold counts a change (x+1); the
// seed's rule then sets next = last + t/x. A scheduler ticks (every minute), takes the
// first m pages by ascending next, marks them so they are not taken twice and puts the
// due ones back on the lane board; the refetch is a conditional GET. Pages are in
// classes (soc, web_com, web_net, web_edu, web_gov) and a page older than its class's
// window is no longer revisited. The default policy replaces next = last + t/x with a
// change-rate estimator that spends a fetch budget (revisit.objective); the seed's rule
// is kept as a policy. Package refresh joins it to the store (each fetch observed into
// the page's revisit row, site priors, the Revisit pane); front.Front.Requeue puts
// the due pages back in the queue and marks them (front.Marks: where each queued
// revisit is, on the board or in hand), so that the idle check leaves them aside.
//
// # M3 egress rotation and site/keyword scheduling (packages egress, balance)
//
// An egress is one way out (a bound local address, an HTTP or SOCKS5 proxy), seen by
// sites as one client. A node keeps for each of its egresses a start_time and a
// recently-used flag. When a request is refused (403, 429, a ban page) or a proxy
// fails, it rotates to the unused egress with the oldest start_time. When all of them
// were refused it claims another from the egress account table, and when none is
// free the host goes on the host_disable_list (two hours by default) with its URLs
// deferred, never dropped. Package egress holds the rotation, the account table and
// the refusal classifier; package lanes/route joins them to the lanes (one link per
// egress with its cookie sessions) and lanes/local builds them for a crawl
// (local.Crew.Equip).
//
// Declared sites are crawled in rounds (package sites: the book of sites, the
// rounds' state, the Sites pane's tally; package front runs them over the queue and
// the store, front/rounds.go). A news site is crawled from its entry URL and its
// pages are kept when they hold a keyword; a social site is searched with each
// keyword through its search URL template. Each round queues
// entries and searches again, interleaves them by host, and at its end writes the
// results in one batch grouped by site and by site+keyword, with the fetch cost of
// each. Those costs feed the load balancing of M4 (package balance).
//
// # M4 distributed crawl (packages cluster, balance, attach)
//
// When one box is not enough, a master owns the frontier (unprocessed, in progress and
// processed URLs), the dedupe, the store and the egress account table, and workers run
// the lanes, their egress rotation, their DNS cache and the fetching. They talk over
// NATS JetStream (package cluster), which the master embeds by default. A link is
// deduped by an LRU of recent URL hashes and then a Bloom filter (frontier.Dedupe, in
// one box too); a Bloom "maybe" is checked against the store, so no new URL is lost to
// a false positive. The master deals units (a news site, a social site's keyword
// shard, the registered domain of any other host) to workers, one owner per unit, and
// re-deals them from measured fetch costs when the workers' loads drift apart
// (master/balance.go over package balance). Workers send heartbeats, and one that goes
// silent is dead: its units go to the others and its URLs back to the queue. Package
// attach serves a running crawl's Control to a console on another terminal or box.
//
// # M5 DNS prefetch cache (package dnscache)
//
// While a lane fetches, the hosts of queued URLs are resolved ahead by a pool of
// resolver workers sized by the backlog. An answer that succeeded faster than a
// threshold goes to the positive cache, filed by registered domain, then host; a
// failed or slow one goes to a weighted negative cache. TTLs are honoured, a stale
// answer is served when upstream fails, and concurrent requests for one name share one
// upstream query. local.NewResolver builds the cache and local.Prefetcher feeds it the queue's hosts.
//
// # One URL's way
//
// seed -> front.Front (normalise, scope, dedupe, store insert, confirm, budgets)
// -> lanes.Board (M1 lane) -> lanes.Runner (robots, politeness gate, fetch through
// the lane's egress, classify, M3) -> front.Front.Record: store.SavePage with the
// links it found and the page's revisit state (M2) -> front.Front for each link.
// Later, front.Front.Requeue puts the page back on the board when it is due again;
// the refetch replaces the stored page.
//
// # Roles and the port between them
//
// One Engine type runs in three roles, chosen when it is built: each constructor
// hands newEngine a role value (role.go), and nothing later asks which role it is
// in:
//
//   - one box (New, localRole): a front and its lanes joined in process;
//   - master (NewMaster, masterRole): the frontier half (store, dedupe,
//     revisit, rounds, discovery, the account table) with no lanes of its own; it
//     hands each unit's URLs to the worker holding it;
//   - worker (StartWorker, workerRole): the lane half (lanes, gate,
//     robots, egress rotation, DNS cache, fetching) with no store.
//
// The role decides what is built (openStore: a store, with the dedupe over it, or
// none; equip: the front's state earlier runs kept, where there is a store, and this
// process's resolver, egresses and gate, or a master's empty board) and what the
// telemetry reports; role.go holds the three and their constructors, each a few
// lines that build its adapters and join them to the Engine, so that building a
// crawl checks no store or role for nil. Everything that differs once the crawl runs
// goes through two ports held from the start, the front and the crew below: Start
// and Stop ask the front to restore, resume, save and close its store (front.go: a
// worker's front has none), and so do the snapshot's store-side panes, a seed list's
// batches and live steering (a worker's front refuses the last two: they are its
// master's); the operator's controls ask the crew, and the crawl's state asks the
// crew whether an unfinished crawl is draining. The distributed roles' own work
// lives in their packages as adapters over ports, none of which sees the Engine:
//
//   - package worker's Node is a worker's conversation with its master (join,
//     heartbeats, task batches, the operator's controls, leave) over the
//     worker.Lanes port, which worker.Join builds from this process's lanes and
//     front queue (worker.Parts) and the crawl's life (worker.Crawl, which the
//     engine's workerCrawl implements); a worker's front is worker.Front, the
//     master over the node's outbox;
//   - package master's Crew is the master's crew: its Runtime (task streams,
//     dispatch, the workers' reports committed, controls passed on, over its
//     Table and Link) and the Runtime's master.Crawl port, which the crew
//     implements over the crawl's parts (master.Parts: store, front, budgets,
//     revisit runtime, counters, the render verdicts its workers learn in a
//     master/verdicts.Book) and life (master.Shell, which the engine's masterShell
//     implements).
//
// The seam between the halves is two ports the lanes define. lanes.Front is what a
// lane needs from the side that hands it tasks (its next task and the board's
// bookkeeping, defer URLs, the counters); package lanes/local implements it over the
// board, and reaches the crawl through local.Crawl, the port it defines (laneport.go
// is the engine's side of that). lanes.Record is where each task goes on its way in
// and out (prepare a refetch, mark a task begun or abandoned, deliver its Outcome,
// record a refusal): the lanes call the crawl's frontPort (record.go) directly, no
// adapter between. On one box and on a master the record is
// localFront, which records into the store in process (front.Front.Record). On a worker it is
// worker.Front, which sends each Outcome to the master as a result
// over NATS (worker.Report), and each URL it set aside as a deferral (a message of its own: the master
// defers the URL, it counts no fetch). Package cluster/wire holds the messages
// between master and workers, their subjects and the result frame (with its HTTP
// exchanges); package cluster, the transport under them.
//
// The other seam is the crew (package crew, crew.Crew): who fetches the front's
// tasks. On one box and on a worker it is local.Crew, this process's lanes (package
// lanes/local: the runner and board, the egresses, the DNS cache, the renderer, the
// deferrals on their way to the front); on a master it is the
// master's crew (master.Crew: its master.Runtime over the master.Crawl port),
// which keeps who holds what in a master.Table (package
// master: the node table, the assignment units, the hand-outs and their leases, the
// spread and balancing plans), talks to the workers through a master.Link (their
// joins, heartbeats and leaves, the operator's controls) and commits their results. Placing a task, the queue
// counts, the crawl's pause and the operator's lane, host and rebalance controls ask
// the crew, so those paths check no role. The table tells the front, through its
// port master.Front, when a task leaves for a worker or comes back, so a revisit's
// mark follows its task.
//
// # Options, views and pages
//
// Every option of a crawl, with its default and its validation, lives in package
// config (Options and its parts, the YAML a config file holds); what the console
// reads of a running crawl lives in package view (Snapshot and its rows, the Sites and
// Revisit panes' views, Stats). Callers name them there; the engine package
// keeps no alias of them. Package page reads a fetched page once — one tokenizer
// pass gives its links, feed links, main text, fingerprint and signature — for the
// lanes, the block-page judge, revisit and the export alike; discover reads feeds and
// sitemaps.
//
// # The front's store side (package front)
//
// Package front owns the store side of the queue on one box and on a master: the
// seeds and links handed to the store and queued as it confirms them (Submit), the
// queue's spill to the store and its page-in, link extraction, recording a task's
// end (Record: the page, its revisit state, its captures, its site's results and
// costs, its story), putting due pages back (Requeue) and the marks of the revisits
// queued (Marks), the rounds over the declared sites and the Sites pane, the page
// budgets, steering's early marks, urgent sources and withdrawals, the counters and
// the store failure's watch. Its parts (front.Parts) are built by the engine: the
// store, the frontier's filters, the site book, the rounds, the revisit runtime, the
// stories. It reaches the crawl through front.Crawl, the port it defines (the crew
// that fetches, what a page feeds besides the front's parts, the crawl's life and
// log); frontport.go is the engine's side of it, and e.fr the engine's way in. Its
// state is under Engine.mu (front.Parts.Mu), as the lanes'.
//
// # Discovery over a port
//
// Package feeds is the front's side of news discovery: what a read of a feed,
// sitemap or polled entry page announces, the pages a moved date makes due, each
// source's next read, the state kept across a restart, the Sites pane's discovery
// rows. It holds its state under its own locks and asks the crawl through
// feeds.Crawl (queue sitemaps, requeue, withdraw, count, log, clock), the port it
// defines; package front implements it over its queue (front/feeds.go, built by
// front.Front.NewFeeds). It never takes Engine.mu, so
// the engine may call it with Engine.mu held (the snapshot does). The same shape
// serves steering (package steer over steer.Crawl, steerport.go) and M2 (package
// refresh).
//
// # Locking
//
// Engine.mu guards the mutable state of both halves and the master's cluster maps
// (the master.Runtime's Table). Store calls never happen under it except the non-blocking queueing
// ones (SetState, Defer, SaveRevisit, ...). NATS requests never happen under it, with
// one exception: a worker's egress claim from its master runs inside the rotation
// (seed 003 step 3-2-3), bounded by a 2 s timeout. Order: Engine.mu, then the egress
// rotation's lock, then the dedupe shards; Engine.mu before the politeness gate's lock
// (the gate calls lanes.Runner.HostInterval, which takes Engine.mu, only outside
// its own). The lanes and the front share Engine.mu (lanes.Runner.Mu,
// local.Parts.Mu, front.Parts.Mu); package feeds does not
// (its locks are taken after Engine.mu, never before). Store
// callbacks (LinkResult, AfterCommit) take Engine.mu on the writer's goroutine.
package engine
