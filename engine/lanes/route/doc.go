// Package route is how a lane's requests leave the box: one Link per egress (its
// fetcher, its proxy or bind address, its cookie sessions), the one classifier
// reading of each answer (refusal, proxy fault or page) on the direct route and
// through egresses alike, the egress account table kept in the store, a worker's
// claims on its master's table, and the policy on proxies added from a console
// session.
package route
