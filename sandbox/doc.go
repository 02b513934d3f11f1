// Package sandbox is a synthetic, hostile, changing web on loopback: the target of
// `crawlconsole demo`, of every test and of every benchmark. Its ground truth (Truth)
// is how the engine is proved right.
//
// # Sites and pages
//
// Config.Hosts virtual hosts are grouped into sites with made-up names and real TLDs:
// news/policy sites on .com, .net, .edu and .gov (classes web_com, web_net, web_edu,
// web_gov) and social sites (class soc, declared in the site list). Each site has www
// plus 2..4 section subdomains, so "same host" and "same registered domain" differ.
// Every name resolves to 127.0.0.1 on the sandbox DNS and every URL carries the HTTP
// port. The entry page (www, /) links to the sections' listing pages, to top stories
// living on the section hosts, to other sites' entries and to dead hosts; listings are
// paginated (?p=N) and link to their articles; social sites also answer
// /search?q=KW&page=N. Every page has exactly one parent (Web.Parent, see pages.go);
// entry and search pages are roots. Text is English, Russian or Chinese (from the
// patents, embedded).
//
// # Change model (M2)
//
// Each article or post changes as a Poisson process: a share Change.NeverShare never
// changes, the others at a rate log-uniform in [MinRate, MaxRate] changes per web day.
// Change times and content are deterministic from (seed, URL without port, version);
// a change rewrites half of the article. Boilerplate (site clock, rotating ad, view
// counter, request id) changes on every request and is not a change. ETag is weak and
// hashes (URL, version); Last-Modified is the real time of the last change;
// If-None-Match and If-Modified-Since give 304.
//
// # Anti-bot rule (seed 000, M1)
//
// Judged per client IP (the TCP source address: a crawler binding 127.0.0.2 … N is N
// clients) and per host. A request to URL u is a violation if the same IP has another
// request to a page adjacent to u — same host, or same parent page — in flight when it
// starts, or one that ended less than AntiBot.HumanGap (default 2 s) before it starts.
// More than AntiBot.MaxViolations (K, default 3) violations on one host within
// AntiBot.Window (default 60 s) ban the IP from that host for AntiBot.BanFor (default
// 30 min). robots.txt requests count as requests to the host. A banned client gets,
// depending on the host, 403 with a deny page, 429 with Retry-After, or 200 with a
// "verify you are human" page. A request quota per (IP, host) (default 3600 per web
// hour) answers 429 with Retry-After past it; on social hosts a search quota (default
// 120 searches per 10 web minutes) answers 429 or, on some hosts, bans. Polite crawling
// — one request at a time per host and per parent, gaps ≥ HumanGap — never trips any
// of it. AntiBot.Enabled=false switches the rule and the request quota off.
//
// # Time scale
//
// Web time runs Config.Scale× real time. Every web constant — change rates, HumanGap,
// Window, BanFor, quota windows, Retry-After, DNS TTLs (rounded up to ≥ 1 s),
// Crawl-delay — shrinks by Scale in real time. Network properties (DNS latency, slow
// and trickled responses) do not. Truth times are real wall-clock times.
//
// # DNS, faults, robots.txt
//
// The DNS server (UDP and TCP) answers A records with a mix of TTLs after a latency
// drawn from [DNS.LatencyMin, LatencyMax], and has dead names answering NXDOMAIN (with
// SOA), SERVFAIL or nothing. A share of articles and posts carries a fault (see
// FaultKinds). Every host's robots.txt disallows /private/ (linked from listings) and
// /admin/; some set Crawl-delay.
//
// # Ground truth
//
// Truth records every request (real start and end, IP, host, URL, status, parent, kind,
// fault, banned, robots-disallowed), every ban, change times and DNS queries per name;
// GET /truth[?since=N] on its own listener serves it as JSON, and
// `crawlconsole sandbox --truth FILE` writes it on exit.
package sandbox
