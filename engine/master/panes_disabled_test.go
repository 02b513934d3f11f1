package master

import (
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// A host two workers disabled is one disabled host in the master's Egress pane and
// ctl status (the pane's "disabled now" counted it twice), held until the later of
// the two entries ends.
func TestEgressViewListsADisabledHostOnce(t *testing.T) {
	tb := New(&keepAll{}, nil, 100)
	now := time.Unix(1700000000, 0)
	for name, until := range map[string]time.Duration{"w1": time.Hour, "w2": 2 * time.Hour} {
		n := tb.addNode(name)
		n.hb.Egress = &view.EgressView{Disabled: []egress.DisabledHost{
			{Host: "a.test", Since: now.Add(-until), Until: now.Add(until), TimeLeft: until},
			{Host: name + ".test", Until: now.Add(time.Hour), TimeLeft: time.Hour},
		}}
	}
	v := tb.EgressView(now)
	var hosts []string
	for _, d := range v.Disabled {
		hosts = append(hosts, d.Host)
	}
	if len(v.Disabled) != 3 || v.Disabled[0].Host != "a.test" || v.Disabled[0].TimeLeft != 2*time.Hour ||
		!v.Disabled[0].Since.Equal(now.Add(-2*time.Hour)) {
		t.Fatalf("disabled %v (%+v); want a.test once, until the later entry's end, then w1.test and w2.test", hosts, v.Disabled)
	}
}
