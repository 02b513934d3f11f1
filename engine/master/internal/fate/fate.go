// Package fate reads what a failed JetStream publish of a master's task batch says
// of the batch: whether the stream may hold it all the same (its worker may fetch
// it), and whether another try may change the answer.
package fate

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// MayBeStored tells whether a failed publish may have put its batch in the stream
// all the same: the request went out and its answer never came (a timeout, the
// connection lost or closed while it waited). No responders (no stream to store
// it) and any answer of the server (a rejection) mean it was not stored.
func MayBeStored(err error) bool {
	for _, e := range []error{context.DeadlineExceeded, nats.ErrTimeout, nats.ErrDisconnected,
		nats.ErrConnectionReconnecting, nats.ErrConnectionClosed} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// Retry tells whether a failed publish is worth another try: no answer in time
// (the batch may be stored, its acknowledgement lost) or no server to answer (no
// responders, the connection down while it reconnects). Any other error is the
// server's answer (a limit, a rejection), which another try gets again.
func Retry(err error) bool {
	for _, e := range []error{context.DeadlineExceeded, nats.ErrTimeout, nats.ErrNoResponders,
		jetstream.ErrNoStreamResponse, nats.ErrDisconnected, nats.ErrConnectionReconnecting} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
