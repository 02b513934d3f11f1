// Package hostreport keeps the crawl's hosts report: per host, and added up per site
// and per egress, the responses by status class, the pages stored, the URLs skipped
// and failed by kind and the refusals, as Heritrix's hosts report does, so that an
// operator can tell a host that blocks the crawl from one that has nothing left.
//
// The engine records each ending of a task here; the console's Hosts pane and
// /metrics read a View. Hosts past MaxHosts are added up in one row
// (view.OtherHosts): a crawl of millions of hosts keeps a bounded report.
package hostreport

import (
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// MaxHosts is how many hosts the report keeps apart; later ones share one row.
const MaxHosts = 100_000

// maxKinds bounds the kinds one row keeps: kinds are a fixed vocabulary but for a
// few built from what a site sent.
const maxKinds = 32

// Book is the hosts report. It is safe for concurrent use.
type Book struct {
	mu sync.Mutex
	// chunks hold the hosts' rows in the order first seen, view.HostRowsChunk a
	// chunk; shared marks those a View handed out, copied before a change.
	chunks   [][]view.HostRow
	shared   []bool
	index    map[string]int // host -> position
	sites    map[string]*view.HostRow
	egresses map[string]*view.HostRow
	other    *view.HostRow // the hosts past MaxHosts
	max      int
}

// New returns an empty report.
func New() *Book { return NewCapped(MaxHosts) }

// NewCapped returns an empty report that keeps at most max hosts apart (tests).
func NewCapped(max int) *Book {
	return &Book{index: map[string]int{}, sites: map[string]*view.HostRow{},
		egresses: map[string]*view.HostRow{}, max: max}
}

// Ending is one task's end as the report counts it.
type Ending struct {
	Host, Site, Egress string
	// Status is the response's status; 0 when none came (a failure before any).
	Status int
	// Kind is why the URL ended without a page ("" for a page to store), Skip
	// whether that was by choice.
	Kind    string
	Skip    bool
	Refused bool // the answer was a refusal (403/429/ban, captcha)
}

// Record counts one ending.
func (b *Book) Record(e Ending) {
	if e.Egress == "" {
		e.Egress = "direct"
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range [...]*view.HostRow{b.host(e.Host, e.Site), b.row(b.sites, e.Site), b.row(b.egresses, e.Egress)} {
		count(r, &e)
	}
}

// Stored counts a page of host committed to the store.
func (b *Book) Stored(host, site, egress string) {
	if egress == "" {
		egress = "direct"
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.host(host, site).Stored++
	b.row(b.sites, site).Stored++
	b.row(b.egresses, egress).Stored++
}

// host is host's row to change, made on first sight; past the cap, the shared one.
func (b *Book) host(host, site string) *view.HostRow {
	if i, ok := b.index[host]; ok {
		return b.writable(i)
	}
	if len(b.index) >= b.max {
		if b.other == nil {
			b.other = &view.HostRow{Name: view.OtherHosts}
		}
		return b.other
	}
	i := len(b.index)
	b.index[host] = i
	if i%view.HostRowsChunk == 0 {
		b.chunks = append(b.chunks, make([]view.HostRow, 0, view.HostRowsChunk))
		b.shared = append(b.shared, false)
	}
	c := len(b.chunks) - 1
	if b.shared[c] {
		b.chunks[c] = append(make([]view.HostRow, 0, view.HostRowsChunk), b.chunks[c]...)
		b.shared[c] = false
	}
	b.chunks[c] = append(b.chunks[c], view.HostRow{Name: host, Site: site})
	return &b.chunks[c][i%view.HostRowsChunk]
}

// writable is row i, its chunk copied first if a View has it.
func (b *Book) writable(i int) *view.HostRow {
	c := i / view.HostRowsChunk
	if b.shared[c] {
		b.chunks[c] = append(make([]view.HostRow, 0, view.HostRowsChunk), b.chunks[c]...)
		b.shared[c] = false
	}
	return &b.chunks[c][i%view.HostRowsChunk]
}

func (b *Book) row(m map[string]*view.HostRow, name string) *view.HostRow {
	if r := m[name]; r != nil {
		return r
	}
	r := &view.HostRow{Name: name}
	m[name] = r
	return r
}

// count adds e to r. Kinds are copied on change, never changed in place, so a
// View's rows may share them.
func count(r *view.HostRow, e *Ending) {
	if e.Status != 0 {
		r.Fetched++
		c := e.Status / 100
		if c < 1 || c > 5 {
			c = view.ClassOther
		}
		r.Classes[c]++
		r.Egress = e.Egress
	}
	if e.Refused {
		r.Refused++
	}
	if e.Kind == "" {
		return
	}
	if e.Skip {
		r.Skipped++
	} else {
		r.Errors++
	}
	kinds := slices.Clone(r.Kinds)
	i := slices.IndexFunc(kinds, func(k view.KindCount) bool { return k.Kind == e.Kind })
	switch {
	case i >= 0:
		kinds[i].Count++
	case len(kinds) < maxKinds:
		kinds = append(kinds, view.KindCount{Kind: e.Kind, Count: 1, Skip: e.Skip})
	default:
		return // counted in Skipped or Errors all the same
	}
	sort.SliceStable(kinds, func(a, b int) bool { return kinds[a].Count > kinds[b].Count })
	r.Kinds = kinds
}

// View copies the report: the hosts in the order first seen (sharing the chunks no
// host changed in since the last View), then the one past the cap; sites and
// egresses by name.
func (b *Book) View() *view.HostsView {
	b.mu.Lock()
	defer b.mu.Unlock()
	chunks := slices.Clone(b.chunks)
	for i := range b.shared {
		b.shared[i] = true
	}
	v := &view.HostsView{}
	if b.other != nil {
		// Its own last chunk: the cap keeps every other chunk full or the last.
		chunks = append(chunks, []view.HostRow{*b.other})
		if n := len(b.index) % view.HostRowsChunk; n != 0 {
			last := chunks[len(chunks)-2]
			chunks[len(chunks)-2] = append(slices.Clip(last), *b.other)
			chunks = chunks[:len(chunks)-1]
		}
		v.Untracked = b.other.Fetched + b.other.Skipped + b.other.Errors
	}
	v.Hosts = view.NewHostRows(chunks)
	v.Sites = sortedRows(b.sites)
	v.Egresses = sortedRows(b.egresses)
	return v
}
func sortedRows(m map[string]*view.HostRow) []view.HostRow {
	out := make([]view.HostRow, 0, len(m))
	for _, r := range m {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b view.HostRow) int { return strings.Compare(a.Name, b.Name) })
	return out
}
