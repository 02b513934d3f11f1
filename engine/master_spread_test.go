package engine

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// TestJoinsDealEachKindOfUnitEvenly: seed 003's assignment as workers join (news
// sites spread evenly; every social site goes to every worker, each with a
// disjoint share of its keywords). Whether the workers join at once or one after
// another while the master already deals to the first, each ends with 1-2 of the 4
// news sites and 2-3 of each social site's 8 keyword shards. Dealing by the total
// alone, the first worker kept only keyword shards after the others joined (the
// intermittent failure of TestSitesAndKeywordShardsAreDealtOverWorkers).
func TestJoinsDealEachKindOfUnitEvenly(t *testing.T) {
	t.Parallel()
	news := []string{"alpha.test", "bravo.test", "charlie.test", "delta.test"}
	social := []string{"social1.test", "social2.test"}
	for _, tc := range []struct {
		name  string
		joins [][]string // workers joining together, in turn
	}{
		{"all at once", [][]string{{"w1", "w2", "w3"}}},
		{"one after another", [][]string{{"w1"}, {"w2"}, {"w3"}}},
		{"two, then one", [][]string{{"w1", "w2"}, {"w3"}}},
		{"in reverse name order", [][]string{{"w3"}, {"w2"}, {"w1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newIdleMaster(t)
			m := e.cluster
			e.mu.Lock()
			defer e.mu.Unlock()
			addUnit := func(site, keyword string) {
				host := "www." + site
				m.add(frontier.Task{URL: "http://" + host + "/" + keyword, Host: host, Site: site, Keyword: keyword})
			}
			for _, s := range news {
				addUnit(s, "")
			}
			for _, s := range social {
				for k := range 8 {
					addUnit(s, fmt.Sprintf("kw%d", k))
				}
			}
			for _, group := range tc.joins {
				for _, name := range group {
					m.nodes[name] = &node{name: name, inc: "i", state: NodeActive, units: map[string]bool{}, held: map[string]frontier.Task{}}
				}
				m.spread()
			}
			for _, name := range sortedKeys(m.nodes) {
				held := map[string]int{}
				for u := range m.nodes[name].units {
					if q := m.units[u]; q.owner != name || q.next != "" {
						t.Errorf("%s counts %s, owned by %q (next %q)", name, u, q.owner, q.next)
					}
					held[unitKind(u)]++
				}
				if held[""] < 1 || held[""] > 2 {
					t.Errorf("%s holds %d of the 4 news sites; want 1 or 2 (holds %v)", name, held[""], held)
				}
				for _, s := range social {
					if held[s] < 2 || held[s] > 3 {
						t.Errorf("%s holds %d of the 8 keyword shards of %s; want 2 or 3 (holds %v)", name, held[s], s, held)
					}
				}
			}
		})
	}
}

// newIdleMaster is a master that is not started (no workers, nothing dispatched): its
// assignment is driven by hand under e.mu.
func newIdleMaster(t *testing.T) *Engine {
	t.Helper()
	dir := t.TempDir()
	srv, err := cluster.StartServer(cluster.ServerOptions{Listen: "127.0.0.1:0", StoreDir: filepath.Join(dir, "nats"), Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	conn, err := cluster.Connect(srv.ClientURL(), cluster.ClientOptions{Name: "master", Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	o := DefaultOptions()
	o.DB = filepath.Join(dir, "crawl.db")
	o.Seeds = []string{"http://example.test/"}
	o.DNSServers = []string{"127.0.0.1:1"}
	e, err := NewMaster(o, MasterOptions{Conn: conn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}
