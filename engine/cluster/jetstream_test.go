package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/embedded"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The stream and consumer the checks below use: a work queue of tasks, as the master
// hands them to workers.
var (
	tasksStream = jetstream.StreamConfig{
		Name:      "TASKS",
		Subjects:  []string{"tasks.>"},
		Storage:   jetstream.FileStorage,
		Retention: jetstream.WorkQueuePolicy,
	}
	tasksConsumer = jetstream.ConsumerConfig{
		Durable:       "workers",
		FilterSubject: "tasks.>",
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       time.Second,
	}
)

// checkRoundTrip sets up the stream and consumer (twice: it must be idempotent),
// publishes tasks, one of them body bytes long, pull-consumes and acks them, and
// sees the work queue empty.
func checkRoundTrip(t *testing.T, c *Conn, body int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for range 2 {
		if _, err := c.EnsureStream(ctx, tasksStream); err != nil {
			t.Fatalf("EnsureStream: %v", err)
		}
	}
	changed := tasksStream
	changed.MaxAge = time.Hour
	s, err := c.EnsureStream(ctx, changed)
	if err != nil {
		t.Fatalf("EnsureStream with a new MaxAge: %v", err)
	}
	if got := s.CachedInfo().Config.MaxAge; got != time.Hour {
		t.Fatalf("stream MaxAge = %s after update; want 1h", got)
	}
	var cons jetstream.Consumer
	for range 2 {
		if cons, err = c.EnsureConsumer(ctx, tasksStream.Name, tasksConsumer); err != nil {
			t.Fatalf("EnsureConsumer: %v", err)
		}
	}
	big := bytes.Repeat([]byte("x"), body)
	want := map[string][]byte{"tasks.a": []byte("one"), "tasks.b": []byte("two"), "tasks.big": big}
	for subj, data := range want {
		if _, err := c.JS.Publish(ctx, subj, data); err != nil {
			t.Fatalf("publish %s (%d bytes): %v", subj, len(data), err)
		}
	}
	got := map[string][]byte{}
	for len(got) < len(want) {
		batch, err := cons.Fetch(len(want)-len(got), jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			t.Fatalf("Fetch: %v", err)
		}
		n := 0
		for m := range batch.Messages() {
			n++
			got[m.Subject()] = m.Data()
			if err := m.DoubleAck(ctx); err != nil {
				t.Fatalf("ack %s: %v", m.Subject(), err)
			}
		}
		if batch.Error() != nil || n == 0 {
			t.Fatalf("Fetch got %d messages, error %v; have %d of %d", n, batch.Error(), len(got), len(want))
		}
	}
	for subj, data := range want {
		if !bytes.Equal(got[subj], data) {
			t.Errorf("%s: got %d bytes, want %d", subj, len(got[subj]), len(data))
		}
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 0 {
		t.Fatalf("work queue holds %d messages after every ack; want 0", info.State.Msgs)
	}
}

// checkSurvivesRestart is what lets the master survive a crash: tasks delivered but
// not acked before stop are delivered again after start, and a publish made while
// the server is away is buffered by the client and lands once it reconnects. When
// graceful, the redelivery is counted and an acked task does not come back.
func checkSurvivesRestart(t *testing.T, c *Conn, stop, start func(), graceful bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := c.EnsureStream(ctx, tasksStream); err != nil {
		t.Fatalf("EnsureStream: %v", err)
	}
	cons, err := c.EnsureConsumer(ctx, tasksStream.Name, tasksConsumer)
	if err != nil {
		t.Fatalf("EnsureConsumer: %v", err)
	}
	for i := 1; i <= 3; i++ {
		if _, err := c.JS.Publish(ctx, fmt.Sprintf("tasks.%d", i), []byte("task")); err != nil {
			t.Fatalf("publish: %v", err)
		}
	}
	batch, err := cons.Fetch(3, jetstream.FetchMaxWait(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for m := range batch.Messages() {
		n++
		if m.Subject() == "tasks.1" {
			if err := m.DoubleAck(ctx); err != nil {
				t.Fatalf("ack: %v", err)
			}
		}
	}
	if n != 3 {
		t.Fatalf("first fetch got %d of 3 tasks (error %v)", n, batch.Error())
	}

	stop()
	waitFor(t, 90*time.Second, "the client to notice the server is gone", func() bool { return !c.NC.IsConnected() })
	if err := c.NC.Publish("tasks.4", []byte("sent while the master was down")); err != nil {
		t.Fatalf("publish while disconnected: %v (want it buffered)", err)
	}
	start()
	waitFor(t, 90*time.Second, "the client to reconnect", c.NC.IsConnected)

	seen := map[string]uint64{} // subject → times delivered
	for seen["tasks.2"] == 0 || seen["tasks.3"] == 0 || seen["tasks.4"] == 0 {
		if ctx.Err() != nil {
			t.Fatalf("after restart got %v; want tasks.2 and tasks.3 redelivered and tasks.4", seen)
		}
		batch, err := cons.Fetch(4, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			continue // the consumer may still be recovering
		}
		for m := range batch.Messages() {
			md, err := m.Metadata()
			if err != nil {
				t.Fatal(err)
			}
			seen[m.Subject()] = md.NumDelivered
			_ = m.DoubleAck(ctx)
		}
	}
	if !graceful {
		// After SIGKILL the consumer's last state may not be on disk: tasks come back
		// (at least once) but their delivery count can restart at 1, and an acked task
		// can come back too. The master must not rely on either.
		t.Logf("after SIGKILL: deliveries %v", seen)
		return
	}
	if seen["tasks.2"] < 2 || seen["tasks.3"] < 2 {
		t.Errorf("unacked tasks delivered %d and %d times; want at least 2 (a redelivery)", seen["tasks.2"], seen["tasks.3"])
	}
	if seen["tasks.1"] != 0 {
		t.Errorf("the acked task came back after a clean restart")
	}
}

func TestJetStreamRoundTrip(t *testing.T) {
	t.Parallel()
	s, _ := startTestServer(t, nil)
	c := connectTest(t, s.ClientURL(), ClientOptions{Name: "worker-1"})
	checkRoundTrip(t, c, 8<<20) // a page body well past nats' 1 MiB default
	err := c.NC.Publish("tasks.huge", make([]byte, embedded.DefaultMaxPayload+1))
	if !errors.Is(err, nats.ErrMaxPayload) {
		t.Fatalf("publish over MaxPayload: err = %v; want nats.ErrMaxPayload", err)
	}
}

func TestJetStreamSurvivesRestart(t *testing.T) {
	t.Parallel()
	s, o := startTestServer(t, nil)
	o.Listen = strings.TrimPrefix(s.ClientURL(), "nats://") // come back on the same port
	c := connectTest(t, s.ClientURL(), ClientOptions{Name: "worker-1"})
	stop := func() { s.Shutdown() }
	start := func() {
		var err error
		if s, err = embedded.Start(o); err != nil {
			t.Fatalf("restart on the same store: %v", err)
		}
		t.Cleanup(s.Shutdown)
	}
	checkSurvivesRestart(t, c, stop, start, true)
}

func TestEnsureRefusesNewerServerFeatures(t *testing.T) {
	t.Parallel()
	s, _ := startTestServer(t, nil)
	c := connectTest(t, s.ClientURL(), ClientOptions{})
	ctx := context.Background()
	now := time.Now()
	streams := []struct {
		field string
		edit  func(*jetstream.StreamConfig)
	}{
		{"Compression", func(c *jetstream.StreamConfig) { c.Compression = jetstream.S2Compression }},
		{"Metadata", func(c *jetstream.StreamConfig) { c.Metadata = map[string]string{"a": "b"} }},
		{"SubjectTransform", func(c *jetstream.StreamConfig) {
			c.SubjectTransform = &jetstream.SubjectTransformConfig{Source: "tasks.>", Destination: "t.>"}
		}},
		{"FirstSeq", func(c *jetstream.StreamConfig) { c.FirstSeq = 10 }},
		{"AllowMsgTTL", func(c *jetstream.StreamConfig) { c.AllowMsgTTL = true }},
		{"AllowMsgCounter", func(c *jetstream.StreamConfig) { c.AllowMsgCounter = true }},
	}
	for _, tc := range streams {
		t.Run("stream "+tc.field, func(t *testing.T) {
			cfg := tasksStream
			cfg.Name = "COMPAT"
			tc.edit(&cfg)
			_, err := c.EnsureStream(ctx, cfg)
			if err == nil || !strings.Contains(err.Error(), tc.field) || !strings.Contains(err.Error(), "2.9") {
				t.Fatalf("err = %v; want a refusal naming %s and 2.9", err, tc.field)
			}
		})
	}
	if _, err := c.JS.Stream(ctx, "COMPAT"); !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Fatalf("a refused stream was created anyway (err %v)", err)
	}
	if _, err := c.EnsureStream(ctx, tasksStream); err != nil {
		t.Fatal(err)
	}
	consumers := []struct {
		field string
		edit  func(*jetstream.ConsumerConfig)
	}{
		{"FilterSubjects", func(c *jetstream.ConsumerConfig) {
			c.FilterSubject, c.FilterSubjects = "", []string{"tasks.a", "tasks.b"}
		}},
		{"Metadata", func(c *jetstream.ConsumerConfig) { c.Metadata = map[string]string{"a": "b"} }},
		{"PauseUntil", func(c *jetstream.ConsumerConfig) { c.PauseUntil = &now }},
		{"PriorityGroups", func(c *jetstream.ConsumerConfig) { c.PriorityGroups = []string{"g"} }},
	}
	for _, tc := range consumers {
		t.Run("consumer "+tc.field, func(t *testing.T) {
			cfg := tasksConsumer
			tc.edit(&cfg)
			_, err := c.EnsureConsumer(ctx, tasksStream.Name, cfg)
			if err == nil || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("err = %v; want a refusal naming %s", err, tc.field)
			}
		})
	}
}
