package master

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/natstest"
	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// A master restarted beside the NATS server its last life used (master --nats)
// starts, and commits its workers' results, life after life. Each life reads them
// through a consumer of its own, the last life's deleted and its name never used
// again: made again under that name, the new consumer's state file is the one
// nats-server's late flush of the deleted consumer may still write, and the
// create, hence the master's start, can fail ("rename …/o.dat.tmp …/o.dat: no such
// file or directory").
func TestARestartedMasterReadsResultsThroughANewConsumer(t *testing.T) {
	t.Parallel()
	_, connect := natstest.Start(t)
	sub := wire.Subjects("t")
	var names []string // the results consumers, life by life
	for life := 1; life <= 3; life++ {
		conn := connect(fmt.Sprintf("master %d", life))
		ctx, cancel := context.WithCancel(context.Background())
		task := frontier.Task{URL: fmt.Sprintf("http://www.a.test/%d", life), Host: "www.a.test", Lease: uint64(life)}
		c := &crawlStub{now: time.Unix(1700000000, 0)}
		committed := make(chan string, 1)
		c.onCommit = func(r *wire.Result) { committed <- r.Task.URL }
		o, err := config.MasterOptions{Conn: conn, Prefix: "t", HeartbeatEvery: time.Second, Timeout: time.Minute, Window: 8}.WithDefaults(config.BalanceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		m := NewRuntime(ctx, c, o, Setup{Held: []frontier.Task{task}, Restarted: life > 1})
		if err := m.Start(); err != nil {
			cancel()
			t.Fatalf("the master's life %d does not start: %v", life, err)
		}
		// The worker's result of the task this life holds: committed by this life.
		data, err := wire.EncodeResult(&wire.Result{Node: "w1", Incarnation: "a", Task: task, At: time.Now(),
			Res: &fetch.Result{Status: 200, FinalURL: task.URL}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.JS.Publish(ctx, sub.Results("w1"), data); err != nil {
			t.Fatal(err)
		}
		select {
		case u := <-committed:
			if u != task.URL {
				t.Fatalf("life %d committed %s; want %s", life, u, task.URL)
			}
		case <-time.After(time.Minute): // a guard, not a measure
			t.Fatalf("life %d did not commit its worker's result of %s", life, task.URL)
		}
		stream, err := conn.JS.Stream(ctx, sub.ResultStream())
		if err != nil {
			t.Fatal(err)
		}
		var now []string
		lister := stream.ConsumerNames(ctx)
		for name := range lister.Name() {
			now = append(now, name)
		}
		if err := lister.Err(); err != nil {
			t.Fatal(err)
		}
		if len(now) != 1 || slices.Contains(names, now[0]) {
			t.Fatalf("life %d: the results stream's consumers are %q; want one, named as none of the earlier lives' %q", life, now, names)
		}
		names = append(names, now[0])
		m.Stop()
		cancel()
	}
}
