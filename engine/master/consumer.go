package master

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// resultsConsumer deletes the results consumers of earlier lives and makes this
// life's, under a new name. A new consumer: results a last life was handed and
// never acknowledged (it died committing them) come at once, not after the
// consumer's AckWait (a minute, long past the grace period). A new name:
// nats-server's delete does not wait for a flush of the consumer's state in
// progress, which writes o.dat through o.dat.tmp in a directory named after it; on
// a server that outlived the last life (master --nats), a consumer made again
// under its name would write the same files, and its create fails when the late
// flush renames the temporary file first ("rename …/o.dat.tmp …/o.dat: no such file").
func (m *Runtime) resultsConsumer(ctx context.Context, results jetstream.Stream) (jetstream.Consumer, error) {
	// Listed first: a delete while listing would shift the pages.
	var old []string
	names := results.ConsumerNames(ctx)
	for name := range names.Name() {
		old = append(old, name)
	}
	if err := names.Err(); err != nil {
		return nil, fmt.Errorf("master: list the results consumers of the last run: %w", err)
	}
	for _, name := range old {
		if err := results.DeleteConsumer(ctx, name); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
			return nil, fmt.Errorf("master: delete the last run's results consumer %s: %w", name, err)
		}
	}
	return m.conn.EnsureConsumer(ctx, m.sub.ResultStream(), jetstream.ConsumerConfig{
		Durable: "master-" + rand.Text(), FilterSubject: m.sub.Results(">"), AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: time.Minute, MaxAckPending: 20000, MaxDeliver: -1,
	})
}
