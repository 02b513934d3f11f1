package hostreport

import (
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// The report counts per host, and the same endings per site and per egress: status
// classes, pages stored, kinds split into skips and errors, refusals.
func TestReportCountsPerHostSiteAndEgress(t *testing.T) {
	b := New()
	b.Record(Ending{Host: "a.example", Site: "example", Egress: "e1", Status: 200, Bytes: 10})
	b.Stored("a.example", "example", "e1")
	b.Record(Ending{Host: "a.example", Site: "example", Egress: "e2", Status: 429, Kind: "refused", Refused: true})
	b.Record(Ending{Host: "b.example", Site: "example", Kind: "robots_disallowed", Skip: true})
	b.Record(Ending{Host: "b.example", Site: "example", Status: 503, Kind: "http_5xx"})
	v := b.View()
	if len(v.Hosts) != 2 || v.Hosts[0].Name != "a.example" || v.Hosts[1].Name != "b.example" {
		t.Fatalf("hosts = %+v", v.Hosts)
	}
	a, bb := v.Hosts[0], v.Hosts[1]
	if a.Fetched != 2 || a.Stored != 1 || a.Classes[view.Class2xx] != 1 || a.Classes[view.Class4xx] != 1 || a.Refused != 1 || a.Errors != 1 || a.Egress != "e2" {
		t.Errorf("a.example = %+v", a)
	}
	if bb.Skipped != 1 || bb.Errors != 1 || bb.Fetched != 1 || len(bb.Kinds) != 2 {
		t.Errorf("b.example = %+v", bb)
	}
	if len(v.Sites) != 1 || v.Sites[0].Fetched != 3 || v.Sites[0].Stored != 1 {
		t.Errorf("sites = %+v", v.Sites)
	}
	if len(v.Egresses) != 3 { // direct, e1, e2
		t.Errorf("egresses = %+v", v.Egresses)
	}
}

// Hosts past the cap share one row: the report stays bounded.
func TestReportIsBounded(t *testing.T) {
	b := NewCapped(2)
	for _, h := range []string{"c", "a", "b", "d"} {
		b.Record(Ending{Host: h, Status: 200})
	}
	v := b.View()
	if len(v.Hosts) != 3 || v.Hosts[0].Name != "a" || v.Hosts[1].Name != "c" || v.Hosts[2].Name != view.OtherHosts || v.Hosts[2].Fetched != 2 {
		t.Fatalf("hosts = %+v", v.Hosts)
	}
	if v.Untracked != 2 {
		t.Errorf("untracked = %d, want 2", v.Untracked)
	}
}

// A View's kinds are not changed by later endings.
func TestViewKeepsItsKinds(t *testing.T) {
	b := New()
	b.Record(Ending{Host: "a", Kind: "timeout"})
	v := b.View()
	b.Record(Ending{Host: "a", Kind: "timeout"})
	if v.Hosts[0].Kinds[0].Count != 1 {
		t.Fatalf("an earlier view's kind count moved to %d", v.Hosts[0].Kinds[0].Count)
	}
}
