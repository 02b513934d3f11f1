// Package egress is M3 (seed 003; see the engine package's doc): the "VPN" side of the crawler.
//
// An egress is one way out to the web, seen by target sites as one client address:
//
//	bind:IP                              leave from a local source address (e.g. a WireGuard tunnel's IP)
//	http://[user:pass@]host:port         HTTP proxy: CONNECT for https targets, absolute-URI forwarding for http
//	socks5://[user:pass@]host:port       SOCKS5 proxy (RFC 1928/1929, golang.org/x/net/proxy)
//	NAME=SPEC                            any of the above with an explicit name (default e1, e2, ...)
//
// Secrets. The password part of a proxy spec may be a literal (percent-escapes such as
// %40 are decoded) or a reference resolved when the spec is parsed, so config files
// and the account table need not hold the password itself:
//
//	socks5://bob:${env:VPN1_PASS}@10.0.0.5:1080    the environment variable VPN1_PASS
//	http://bob:${file:/etc/crawl/vpn1.pass}@h:3128  the file's content, trailing newline trimmed
//
// A password never leaves a Secret except through Secret.Reveal (used to talk to the
// proxy) and Secret.Persisted (used by an AccountStore): String, every fmt verb
// (%v %+v %#v %s %q), slog and JSON print "***", and parse and dial errors name the
// egress by its masked form.
//
// SSRF guard. Every dial resolves the target locally with TransportConfig.Resolve and
// checks each address with TransportConfig.Guard before anything leaves the box. For
// bind and SOCKS5 egresses and for https through an HTTP proxy (CONNECT) the checked
// IP itself is what is dialled or sent to the proxy, so a DNS answer cannot change
// between check and use. For plain http through an HTTP proxy (absolute-URI
// forwarding, which keeps one keep-alive connection to the proxy for every host) the
// proxy receives the host name and resolves it again on its side; the local check
// still refuses names that resolve to guarded ranges here.
//
// Rotation (Rotation) is the seed's per-node list with start_time and recently_used,
// the host_disable_list, and, on top of the seed, per-(egress, host) site bans and
// per-egress proxy-fault cooldowns; Classifier decides which of those a response is.
// Table is the egress account table (the master's role; on one box the local table).
// Pool ties table, rotation and one keep-alive transport per egress together for the
// engine.
package egress
