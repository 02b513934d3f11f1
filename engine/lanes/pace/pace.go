// Package pace holds the contract of a pluggable pacing policy: what a Pacer
// learns from each answer and the gap it asks for. It imports nothing of the
// engine, so the options (engine/config) can name a Pacer without depending on the
// lanes that run it.
package pace

import "time"

// Pacer is a pluggable pacing policy: Observe learns from each answer, Gap is the
// host's end-to-start gap it asks for (the lanes' gate takes the largest of every term).
// The gate calls it under its own lock: a Pacer must not call back into the gate.
type Pacer interface {
	Observe(host string, r Response, latency time.Duration)
	Gap(host string) time.Duration
}

// Response is what a finished request told the gate about the server.
type Response struct {
	// Status is the HTTP status; 0 with Timeout false means no answer came (the
	// request failed before the server answered, or was cancelled): nothing is learnt.
	Status int
	// RetryAfter says the answer carried a Retry-After header: the server named its
	// own wait, which the engine obeys (fetch.max_retry_after); no back-off on top.
	RetryAfter bool
	// Timeout says the server did not answer in time: an overload signal.
	Timeout bool
	// Latency is the response time; 0: the gate's own clock, from Acquire to Finish;
	// negative: unknown (the fetch waited inside, e.g. a paced redirect hop), the
	// latency term and the rising-latency signal learn nothing from it.
	Latency time.Duration
}
