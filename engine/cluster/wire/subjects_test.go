package wire

import (
	"errors"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// A deferral travels inside the results' stream (the master's one consumer of
// Results(">") gets it in its place) and is told apart by its subject alone, even
// for a worker named "defer".
func TestDeferralsShareTheResultStreamAndAreToldApart(t *testing.T) {
	t.Parallel()
	p := Subjects("crawl")
	if p.ResultStream() != "crawl_RESULTS" || p.TaskStream() != "crawl_TASKS" || Subjects("a.b").TaskStream() != "a_b_TASKS" {
		t.Errorf("streams %s, %s, %s", p.ResultStream(), p.TaskStream(), Subjects("a.b").TaskStream())
	}
	for subject, want := range map[string]bool{
		p.Deferrals("w1"): true, p.Deferrals("defer"): true,
		p.Results("w1"): false, p.Results("defer"): false, p.Tasks("w1"): false,
		"crawl.result.w1.other": false, "other.result.w1.defer": false,
	} {
		if got := p.IsDeferral(subject); got != want {
			t.Errorf("IsDeferral(%q) = %v, want %v", subject, got, want)
		}
	}
	if d := p.Deferrals("w1"); d != "crawl.result.w1.defer" {
		t.Errorf("deferrals subject %q is not under the results' crawl.result.>", d)
	}
}

// A deferral round-trips, and one without a lease or a time is refused as malformed.
func TestDeferralValidates(t *testing.T) {
	t.Parallel()
	task := frontier.Task{URL: "http://a.test/", Host: "a.test", Lease: 9}
	until := time.Unix(1700000000, 0).UTC()
	data, err := cluster.Encode(&Deferral{Node: "w1", Incarnation: "abc", Task: task, Until: until})
	if err != nil {
		t.Fatal(err)
	}
	var d Deferral
	if err := cluster.Decode(data, &d, MaxMessage); err != nil || d.Task.Lease != 9 || !d.Until.Equal(until) {
		t.Fatalf("round trip: %+v, %v", d, err)
	}
	for name, bad := range map[string]Deferral{
		"no time":  {Node: "w1", Incarnation: "abc", Task: task},
		"no lease": {Node: "w1", Incarnation: "abc", Task: frontier.Task{URL: task.URL, Host: task.Host}, Until: until},
		"bad node": {Node: "a b", Incarnation: "abc", Task: task, Until: until},
	} {
		data, _ := cluster.Encode(&bad)
		var d Deferral
		if err := cluster.Decode(data, &d, MaxMessage); !errors.Is(err, cluster.ErrMalformed) {
			t.Errorf("%s: %v, want an error wrapping ErrMalformed", name, err)
		}
	}
}
