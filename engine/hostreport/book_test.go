package hostreport

import (
	"fmt"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// The report counts per host, and the same endings per site and per egress: status
// classes, pages stored, kinds split into skips and errors, refusals.
func TestReportCountsPerHostSiteAndEgress(t *testing.T) {
	b := New()
	b.Record(Ending{Host: "a.example", Site: "example", Egress: "e1", Status: 200})
	b.Stored("a.example", "example", "e1")
	b.Record(Ending{Host: "a.example", Site: "example", Egress: "e2", Status: 429, Kind: "refused", Refused: true})
	b.Record(Ending{Host: "b.example", Site: "example", Kind: "robots_disallowed", Skip: true})
	b.Record(Ending{Host: "b.example", Site: "example", Status: 503, Kind: "http_5xx"})
	v := b.View()
	if v.Hosts.Len() != 2 || v.Hosts.At(0).Name != "a.example" || v.Hosts.At(1).Name != "b.example" {
		t.Fatalf("hosts = %+v", v.Hosts)
	}
	a, bb := *v.Hosts.At(0), *v.Hosts.At(1)
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
	if v.Hosts.Len() != 3 || v.Hosts.At(0).Name != "c" || v.Hosts.At(1).Name != "a" || v.Hosts.At(2).Name != view.OtherHosts || v.Hosts.At(2).Fetched != 2 {
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
	if v.Hosts.At(0).Kinds[0].Count != 1 {
		t.Fatalf("an earlier view's kind count moved to %d", v.Hosts.At(0).Kinds[0].Count)
	}
}

// A View is a copy: later endings change none of its rows, and a host that did not
// move shares its chunk with the next View (what makes a View of 10,000 hosts cheap).
func TestViewsShareWhatDidNotChange(t *testing.T) {
	b := New()
	for i := range 3 * view.HostRowsChunk {
		b.Record(Ending{Host: fmt.Sprintf("h%05d", i), Status: 200})
	}
	v1 := b.View()
	b.Record(Ending{Host: "h00000", Status: 500})
	v2 := b.View()
	if v1.Hosts.At(0).Fetched != 1 || v2.Hosts.At(0).Fetched != 2 {
		t.Fatalf("fetched: first view %d, second %d; want 1 and 2", v1.Hosts.At(0).Fetched, v2.Hosts.At(0).Fetched)
	}
	if &v1.Hosts.Chunks()[0][0] == &v2.Hosts.Chunks()[0][0] {
		t.Error("the chunk a host changed in is shared with the earlier view")
	}
	if &v1.Hosts.Chunks()[1][0] != &v2.Hosts.Chunks()[1][0] {
		t.Error("a chunk no host changed in was copied")
	}
}
