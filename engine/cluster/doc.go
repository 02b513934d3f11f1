// Package cluster is the transport of the distributed crawl (M4): a client connection
// for workers and the master alike, a size-checked message codec and idempotent stream
// setup. The master's embedded NATS server with JetStream is cluster/embedded, apart so
// that only what starts a server links nats-server. This package knows NATS and
// nothing of the crawl; the crawl's messages, subjects and streams live above it.
//
// # Oldest server supported: nats-server 2.9
//
// The master normally embeds its own server (the version in go.mod), but an operator
// may point the crawl at an existing server, and Debian ships nats-server 2.9. So
// everything here stays within what 2.9 understands: pull consumers with one
// FilterSubject (FilterSubjects is 2.10), no stream compression, subject transforms,
// metadata, first sequence or consumer limits (2.10), no per-message TTL, consumer
// pause or priority groups (2.11), no counters, atomic or scheduled publishes (2.12).
// EnsureStream and EnsureConsumer refuse such fields with an error naming the field,
// rather than letting an old server silently ignore them. Connect refuses servers older
// than 2.9, which lack named consumers and the filtered consumer-create API that the
// jetstream client relies on.
package cluster
