package master

import (
	"fmt"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// A host the operator paused keeps its tasks at the master: the worker's window
// goes to the unit's other hosts, and once the host is resumed its tasks are dealt
// in their order.
func TestAPausedHostsTasksWaitAtTheMaster(t *testing.T) {
	t.Parallel()
	tb := New(&keepAll{}, nil, 1)
	tb.Join(&wire.Join{Node: "w1", Incarnation: "i", LanesMax: 4}, time.Now(), 0)
	tb.SetHostPaused("a.site.test", true)
	for i := range 4 {
		tb.Add(frontier.Task{URL: fmt.Sprintf("http://a.site.test/%d", i), Host: "a.site.test"})
	}
	for i := range 4 {
		tb.Add(frontier.Task{URL: fmt.Sprintf("http://b.site.test/%d", i), Host: "b.site.test"})
	}
	dealt := func() []string {
		var urls []string
		for _, b := range tb.Dispatch(3) {
			for _, task := range b.Tasks {
				urls = append(urls, task.URL)
				tb.Settle("w1", task, true)
			}
		}
		return urls
	}
	got := append(dealt(), dealt()...)
	want := "[http://b.site.test/0 http://b.site.test/1 http://b.site.test/2 http://b.site.test/3]"
	if fmt.Sprint(got) != want {
		t.Fatalf("with a.site.test paused w1 was dealt %v, want %s", got, want)
	}
	tb.SetHostPaused("a.site.test", false)
	got = dealt()
	if want := "[http://a.site.test/0 http://a.site.test/1 http://a.site.test/2]"; fmt.Sprint(got) != want {
		t.Fatalf("a.site.test resumed: w1 was dealt %v, want %s", got, want)
	}
}
