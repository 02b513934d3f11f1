package attach_test

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/crawlconsole/crawlconsole/engine/attach"
	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/engine/dnscache"
	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/fake"
)

const prefix = "crawl.test"

// startNATS runs a throwaway NATS server on a random loopback port for one test.
// maxPayload > 0 raises the largest message it takes (default 1 MiB).
func startNATS(t *testing.T, maxPayload int32) *server.Server {
	t.Helper()
	opts := &server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true, MaxPayload: maxPayload}
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(5 * time.Second) {
		t.Fatal("NATS server not ready")
	}
	t.Cleanup(s.Shutdown)
	return s
}

func connect(t *testing.T, s *server.Server) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// served is a master serving ctrl and a client dialled to it, each on its own
// connection as they would be on two machines.
func served(t *testing.T, ctrl control.Control, opts ...attach.Option) (*attach.Server, *attach.Client) {
	t.Helper()
	ns := startNATS(t, 0)
	srv, err := attach.Listen(connect(t, ns), prefix, ctrl)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return srv, attach.Dial(connect(t, ns), prefix, opts...)
}

// fixedSnapshot is a Control whose Snapshot is s; the rest is the fake's.
type fixedSnapshot struct {
	*fake.Control
	s view.Snapshot
}

func (f fixedSnapshot) Snapshot() view.Snapshot { return f.s }

// richSnapshot is a snapshot with every field set somewhere: a distributed crawl
// from the fake (nodes, lanes on workers, DNS, egress and revisit views) with what
// the fake leaves empty filled in, and times as the engine makes them (local zone,
// monotonic clock reading).
func richSnapshot() view.Snapshot {
	c := fake.New(fake.Config{Workers: 4, Sites: true, Hosts: 70, Stories: true})
	_ = c.PauseLane(2, true)
	_ = c.PauseHost("news-00.sandbox.test", true)
	s := c.Snapshot()
	s.At = time.Now()
	s.Nodes[0].Heartbeat = time.Now().In(time.FixedZone("CEST", 2*3600))
	s.Sizing = &view.Sizing{Sites: 3, SocialSites: 1, Keywords: 4, PagesPerKeyword: 5, PagesPerIP: 500, PagesPerIPFrom: view.PagesPerIPConfig, VPNs: 2, Round: 7,
		RoundPages: 900, AccessTime: 3 * time.Second, VPNConnect: 10 * time.Second, ExpectTime: time.Hour, LanesPerWorker: 8, Workers: 1}
	s.NextRound = time.Now().Add(time.Hour).Round(0)
	s.NextRevisit = time.Now().Add(2 * time.Hour).Round(0)
	s.Totals.ConfirmFetches = 3
	s.Totals.Robots = view.RobotsWaiting{URLs: 180, Sites: 3, Waited: 185}
	s.Render = &view.RenderStats{Running: true, Starting: true, Stopping: true, Hung: 1, Contexts: 4, Busy: 1, PSSMB: 288, Renders: 31, Failed: 1, Recycled: 2, Restarts: 1, Unsettled: 2, WaitedOut: 1,
		Requests: 140, Seconds: 27.5, Hosts: []view.RenderHost{{Host: "spa.sandbox.test", Renders: 31, Failed: 1, Requests: 140, Seconds: 27.5, Unsettled: 2}}}
	s.DNS.Stats.Rejected = 2
	s.DNS.Stats.WaitP50Ms = 0.25
	s.DNS.Stats.WaitHistogram = []dnscache.HistBucket{{UpToMs: 0, Count: 40000}, {UpToMs: 0.5, Count: 12}}
	s.Egress.Disabled = append(s.Egress.Disabled, egress.DisabledHost{Host: "x.example", Since: s.At, Until: s.At.Add(time.Hour), TimeLeft: time.Hour})
	s.Revisit.Intervals = append(s.Revisit.Intervals, view.IntervalBucket{Min: time.Minute, Max: time.Hour, Pages: 3})
	s.Totals.Skipped = map[string]int64{"robots_disallowed": 360}
	s.Totals.Warnings = map[string]int64{"discovery_invalid_date": 4}
	s.Totals.ByClass = map[string]int64{"2xx": 120001, "4xx": 3455}
	s.LastEvent = math.MaxUint64 - 1 // beyond float64's exact integers
	s.StoreError = "store: commit batch of 3 operations: database or disk is full"
	s.Discovery = []view.SiteDiscovery{{Site: "harbor-times.com", Feeds: []string{"http://www.harbor-times.com/feed"},
		Sitemaps: []string{"http://www.harbor-times.com/sitemap.xml"}, Found: 120, DatesTrusted: true, Hints: 4, Ignored: 1,
		Why: "dates are the serving time in 2 of its last 2 sitemaps/feeds", Warnings: map[string]int{"bad_date": 2},
		Covered:  map[string]string{"http://www.harbor-times.com/sitemap.xml": "http://www.harbor-times.com/feed"},
		Problems: map[string]string{"http://www.harbor-times.com/news.xml": "malformed"}}}
	s.Groups[0].Parents[0].Hash = math.MaxUint64
	s.Sites.Sites[0].Feeds, s.Sites.Sites[0].Sitemaps = []string{"http://x.example/feed"}, []string{"http://x.example/sitemap.xml"}
	s.Sites.Sites[0].DatesTrusted, s.Sites.Sites[0].Held = "no", 3
	s.Sites.Sites[0].Covered = map[string]string{"http://x.example/sitemap.xml": "http://x.example/feed"}
	s.Sites.Sites[0].TotalUsed, s.Sites.Sites[0].BudgetTotal = 41, 900
	s.Sites.Sites[0].Waits, s.Sites.Sites[0].WaitsBehind = "robots → www.wire.example held", "www.wire.example"
	s.Join = "crawlconsole worker --join nats://127.0.0.1:4222 --name NAME --token-file m.db.token"
	s.Hosts.Untracked = 2
	s.Hosts.Render = map[string]view.RenderHost{"spa.sandbox.test": {Host: "spa.sandbox.test", Renders: 31, Failed: 1, Requests: 140, Seconds: 27.5, Unsettled: 2}}
	s.Lanes[0].Rendered, s.Lanes[0].Rendering, s.Lanes[0].RenderTime = 31, 2, 27500*time.Millisecond
	return s
}

// TestSnapshotRoundTrip: what the attached console sees is the master's snapshot,
// every field of it (times compared as instants).
func TestSnapshotRoundTrip(t *testing.T) {
	want := richSnapshot()
	if missing := zeroFields(reflect.ValueOf(want)); len(missing) > 0 {
		t.Fatalf("richSnapshot leaves these fields zero, so the round trip would not cover them: %s",
			strings.Join(missing, ", "))
	}
	_, cl := served(t, fixedSnapshot{fake.New(fake.Config{}), want})
	got := cl.Snapshot()
	if err := cl.Err(); err != nil {
		t.Fatal(err)
	}
	g, w := normalise(reflect.ValueOf(got)), normalise(reflect.ValueOf(want))
	if !reflect.DeepEqual(g.Interface(), w.Interface()) {
		d := fieldDiff("Snapshot", g, w)
		if d == "" {
			d = "no exported field differs: an unexported one does, which JSON does not carry"
		}
		t.Fatalf("snapshot changed on the way: %s", d)
	}
}

// TestBigSnapshotIsCompressed: a crawl with thousands of lanes has a snapshot over
// NATS's 1 MiB max payload; it still arrives.
func TestBigSnapshotIsCompressed(t *testing.T) {
	ctrl := fake.New(fake.Config{Lanes: 6000, Workers: 30})
	want := ctrl.Snapshot()
	if b, _ := json.Marshal(want); len(b) < 2<<20 {
		t.Fatalf("snapshot is only %d bytes; the test wants one over the max payload", len(b))
	}
	// The reply is judged for its size, not its speed: building, compressing and
	// reading 2 MB of JSON took more than the client's default 2 s on a loaded box.
	_, cl := served(t, ctrl, attach.WithTimeout(time.Minute))
	got := cl.Snapshot()
	if err := cl.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got.Lanes) != 6000 || got.Lanes[5999].Current != want.Lanes[5999].Current || len(got.Nodes) != 30 {
		t.Fatalf("got %d lanes, %d nodes", len(got.Lanes), len(got.Nodes))
	}
}

// TestNonFiniteFiguresDoNotBlankTheConsole: JSON has no NaN; one odd ratio arrives
// as 0 and the rest of the snapshot with it.
func TestNonFiniteFiguresDoNotBlankTheConsole(t *testing.T) {
	s := richSnapshot()
	s.PagesPerSec = math.NaN()
	s.Nodes[1].PagesPerSec = math.Inf(1)
	s.DNS.Stats.WaitHistogram[1].UpToMs = math.Inf(1)
	s.RateHistory = []float64{1, math.NaN(), 3}
	_, cl := served(t, fixedSnapshot{fake.New(fake.Config{}), s})
	got := cl.Snapshot()
	if err := cl.Err(); err != nil {
		t.Fatal(err)
	}
	if got.State != view.StateRunning || got.PagesPerSec != 0 || got.Nodes[1].PagesPerSec != 0 ||
		got.DNS.Stats.WaitHistogram[1].UpToMs != 0 || !slices.Equal(got.RateHistory, []float64{1, 0, 3}) ||
		got.Nodes[0].PagesPerSec != s.Nodes[0].PagesPerSec {
		t.Fatalf("got rate %v, node rates %v/%v, history %v", got.PagesPerSec, got.Nodes[0].PagesPerSec,
			got.Nodes[1].PagesPerSec, got.RateHistory)
	}
	if !math.IsNaN(s.PagesPerSec) || !math.IsInf(s.DNS.Stats.WaitHistogram[1].UpToMs, 1) {
		t.Fatal("the master's own snapshot was changed")
	}
}

// zeroFields lists the struct fields (Type.Field) reachable from v's type that are
// zero everywhere they occur in v (or never occur: a type only in empty slices).
func zeroFields(v reflect.Value) []string {
	set := map[string]bool{}
	var walkType func(t reflect.Type)
	walkType = func(t reflect.Type) {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			walkType(t.Elem())
		case reflect.Struct:
			if t == reflect.TypeFor[time.Time]() {
				return
			}
			for i := range t.NumField() {
				name := t.String() + "." + t.Field(i).Name
				if _, seen := set[name]; !seen {
					set[name] = false
					walkType(t.Field(i).Type)
				}
			}
		}
	}
	walkType(v.Type())
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Map:
			for it := v.MapRange(); it.Next(); {
				walk(it.Value())
			}
		case reflect.Struct:
			if v.Type() == reflect.TypeFor[time.Time]() {
				return
			}
			if rows, ok := v.Interface().(view.HostRows); ok {
				// Its fields are its own; its MarshalJSON writes the rows.
				set["view.HostRows.chunks"] = set["view.HostRows.chunks"] || rows.Len() > 0
				set["view.HostRows.n"] = set["view.HostRows.n"] || rows.Len() > 0
				for i := range rows.Len() {
					walk(reflect.ValueOf(*rows.At(i)))
				}
				return
			}
			for i := range v.NumField() {
				f := v.Type().Field(i)
				name := v.Type().String() + "." + f.Name
				if !f.IsExported() {
					continue // JSON would drop it: it stays listed
				}
				set[name] = set[name] || !v.Field(i).IsZero()
				walk(v.Field(i))
			}
		}
	}
	walk(v)
	var out []string
	for name, ok := range set {
		if !ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// normalise copies v with every time as its instant in UTC (no monotonic reading,
// no zone): what JSON keeps of a time.
func normalise(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			c := reflect.New(v.Type().Elem())
			c.Elem().Set(normalise(v.Elem()))
			return c
		}
	case reflect.Slice:
		if !v.IsNil() {
			c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			for i := range v.Len() {
				c.Index(i).Set(normalise(v.Index(i)))
			}
			return c
		}
	case reflect.Map:
		if !v.IsNil() {
			c := reflect.MakeMapWithSize(v.Type(), v.Len())
			for it := v.MapRange(); it.Next(); {
				c.SetMapIndex(it.Key(), normalise(it.Value()))
			}
			return c
		}
	case reflect.Struct:
		if t, ok := v.Interface().(time.Time); ok {
			return reflect.ValueOf(t.Round(0).UTC())
		}
		if _, ok := v.Interface().(view.HostRows); ok {
			return v // no times in it, and its fields are its own
		}
		c := reflect.New(v.Type()).Elem()
		for i := range v.NumField() {
			c.Field(i).Set(normalise(v.Field(i)))
		}
		return c
	}
	return v
}

// fieldDiff names the first field where got and want differ, by its path from
// path, and both values; normalised values (normalise) are compared. A view.HostRows
// is compared row by row, as its JSON carries it.
func fieldDiff(path string, got, want reflect.Value) string {
	if got.Kind() != want.Kind() {
		return fmt.Sprintf("%s: got a %v, want a %v", path, got.Kind(), want.Kind())
	}
	switch got.Kind() {
	case reflect.Pointer, reflect.Interface:
		if got.IsNil() || want.IsNil() {
			if got.IsNil() != want.IsNil() {
				return fmt.Sprintf("%s: got %s, want %s", path, nilOr(got), nilOr(want))
			}
			return ""
		}
		return fieldDiff(path, got.Elem(), want.Elem())
	case reflect.Slice, reflect.Array:
		if got.Kind() == reflect.Slice && got.IsNil() != want.IsNil() {
			return fmt.Sprintf("%s: got %s, want %s", path, nilOr(got), nilOr(want))
		}
		for i := range min(got.Len(), want.Len()) {
			if d := fieldDiff(fmt.Sprintf("%s[%d]", path, i), got.Index(i), want.Index(i)); d != "" {
				return d
			}
		}
		if got.Len() != want.Len() {
			return fmt.Sprintf("%s: got %d elements, want %d", path, got.Len(), want.Len())
		}
	case reflect.Map:
		if got.IsNil() != want.IsNil() {
			return fmt.Sprintf("%s: got %s, want %s", path, nilOr(got), nilOr(want))
		}
		keys := want.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		for _, k := range keys {
			kp := fmt.Sprintf("%s[%v]", path, k)
			g := got.MapIndex(k)
			if !g.IsValid() {
				return fmt.Sprintf("%s: missing, want %s", kp, show(want.MapIndex(k)))
			}
			if d := fieldDiff(kp, g, want.MapIndex(k)); d != "" {
				return d
			}
		}
		for _, k := range got.MapKeys() {
			if !want.MapIndex(k).IsValid() {
				return fmt.Sprintf("%s[%v]: got %s, want no such key", path, k, show(got.MapIndex(k)))
			}
		}
	case reflect.Struct:
		if gr, ok := got.Interface().(view.HostRows); ok {
			wr := want.Interface().(view.HostRows)
			for i := range min(gr.Len(), wr.Len()) {
				if d := fieldDiff(fmt.Sprintf("%s[%d]", path, i), reflect.ValueOf(*gr.At(i)), reflect.ValueOf(*wr.At(i))); d != "" {
					return d
				}
			}
			if gr.Len() != wr.Len() {
				return fmt.Sprintf("%s: got %d rows, want %d", path, gr.Len(), wr.Len())
			}
			return ""
		}
		if gt, ok := got.Interface().(time.Time); ok {
			if wt := want.Interface().(time.Time); !gt.Equal(wt) {
				return fmt.Sprintf("%s: got %v, want %v", path, gt, wt)
			}
			return ""
		}
		for i := range got.NumField() {
			if !got.Type().Field(i).IsExported() {
				continue // JSON does not carry it
			}
			if d := fieldDiff(path+"."+got.Type().Field(i).Name, got.Field(i), want.Field(i)); d != "" {
				return d
			}
		}
	default:
		if !reflect.DeepEqual(got.Interface(), want.Interface()) {
			return fmt.Sprintf("%s: got %s, want %s", path, show(got), show(want))
		}
	}
	return ""
}

// nilOr says nil, or empty, or how many elements v has (a pointer: not nil).
func nilOr(v reflect.Value) string {
	switch {
	case v.IsNil():
		return "nil"
	case v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface:
		return show(v.Elem())
	case v.Len() == 0:
		return "empty, not nil"
	}
	return fmt.Sprintf("%d elements", v.Len())
}

// show is v as Go syntax.
func show(v reflect.Value) string { return fmt.Sprintf("%#v", v.Interface()) }
