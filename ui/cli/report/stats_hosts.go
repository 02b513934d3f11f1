package report

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/crawlconsole/crawlconsole/engine/front"
	"github.com/crawlconsole/crawlconsole/store"
	"github.com/crawlconsole/crawlconsole/ui/cli/clikit"
)

// hostsReport is `stats --hosts`: the store's hosts report (Heritrix's hosts report,
// with the response classes per host that show a host blocking the crawl), per host
// or added up per site, sorted and filtered.
type hostsReport struct {
	on     bool
	by     string
	sortBy string
	filter string
	top    int
}

// hostSortKeys are the figures --sort takes, each largest first; "host" sorts by name.
var hostSortKeys = map[string]func(h *store.HostStats) int64{
	"urls":     func(h *store.HostStats) int64 { return h.URLs },
	"stored":   func(h *store.HostStats) int64 { return h.Stored },
	"failed":   func(h *store.HostStats) int64 { return h.Failed },
	"waiting":  func(h *store.HostStats) int64 { return h.Waiting },
	"refusals": func(h *store.HostStats) int64 { return h.Refusals },
	"4xx":      func(h *store.HostStats) int64 { return h.Status["4xx"] },
	"5xx":      func(h *store.HostStats) int64 { return h.Status["5xx"] },
}

func (r *hostsReport) flags(fs *flag.FlagSet) {
	fs.BoolVar(&r.on, "hosts", false, "print the hosts report: per host its URLs, pages stored, status classes, kinds and refusals")
	fs.StringVar(&r.by, "by", "host", "with --hosts: one row per `host`, per site, or per egress (pages stored, status classes and refusals through each)")
	fs.StringVar(&r.sortBy, "sort", "urls", "with --hosts: order by `FIGURE`, largest first: urls, stored, failed, waiting, refusals, 4xx, 5xx, or host (by name)")
	fs.StringVar(&r.filter, "filter", "", "with --hosts: only rows whose host or site contains `TEXT` (!TEXT: does not)")
	fs.IntVar(&r.top, "top", 0, "with --hosts: at most `N` rows (0: all)")
}

func (r *hostsReport) run(st *store.Store, asJSON bool, stdout, stderr io.Writer) int {
	if r.by != "host" && r.by != "site" && r.by != "egress" {
		fmt.Fprintf(stderr, "crawlconsole stats: --by %q: give host, site or egress\n", r.by)
		return clikit.ExitUsage
	}
	key, ok := hostSortKeys[r.sortBy]
	if !ok && r.sortBy != "host" {
		fmt.Fprintf(stderr, "crawlconsole stats: --sort %q: give one of host, %s\n", r.sortBy, strings.Join(slices.Sorted(maps.Keys(hostSortKeys)), ", "))
		return clikit.ExitUsage
	}
	rows, err := st.HostReport()
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole stats: %v\n", err)
		return 1
	}
	if r.by == "site" {
		rows = bySite(rows)
	}
	if r.by == "egress" {
		return r.printEgresses(rows, asJSON, stdout)
	}
	needle, invert := strings.ToLower(r.filter), false
	if strings.HasPrefix(needle, "!") {
		needle, invert = needle[1:], true
	}
	rows = slices.DeleteFunc(rows, func(h store.HostStats) bool {
		hit := strings.Contains(strings.ToLower(h.Host), needle) || strings.Contains(strings.ToLower(h.Site), needle)
		return needle != "" && hit == invert
	})
	if key != nil {
		slices.SortStableFunc(rows, func(a, b store.HostStats) int { return cmp.Compare(key(&b), key(&a)) })
	}
	if r.top > 0 && len(rows) > r.top {
		rows = rows[:r.top]
	}
	if asJSON {
		return clikit.WriteJSON(stdout, map[string]any{"by": r.by, "hosts": rows})
	}
	name := "HOST"
	if r.by == "site" {
		name = "SITE"
	}
	t := table{left: map[int]bool{0: true, 10: true}}
	t.add(name, "URLS", "STORED", "WAITING", "FAILED", "2XX", "3XX", "4XX", "5XX", "REFUSALS", "EGRESSES")
	for _, h := range rows {
		t.add(h.Host, h.URLs, h.Stored, h.Waiting, h.Failed, h.Status["2xx"], h.Status["3xx"], h.Status["4xx"], h.Status["5xx"],
			h.Refusals, clikit.Dash(strings.Join(h.Egresses, ",")))
	}
	if t.write(stdout) != nil {
		return 1
	}
	// The kinds, one line a row that has any: errors apart from skips (chosen).
	for _, h := range rows {
		var errs, skips []string
		for _, k := range h.Kinds {
			item := fmt.Sprintf("%s=%d", k.Kind, k.Count)
			if front.IsSkip(k.Kind) {
				skips = append(skips, item)
			} else {
				errs = append(errs, item)
			}
		}
		if len(errs)+len(skips) == 0 {
			continue
		}
		line := h.Host + ":"
		if len(errs) > 0 {
			line += " errors " + strings.Join(errs, " ")
		}
		if len(skips) > 0 {
			line += " skipped " + strings.Join(skips, " ")
		}
		fmt.Fprintln(stdout, line)
	}
	return 0
}

// bySite adds the hosts up per site (a host with none is its own site).
func bySite(hosts []store.HostStats) []store.HostStats {
	sites := map[string]*store.HostStats{}
	for _, h := range hosts {
		name := h.Site
		if name == "" {
			name = h.Host
		}
		s := sites[name]
		if s == nil {
			s = &store.HostStats{Host: name, Site: name, Status: map[string]int64{}, Kinds: []store.KindCount{}, Egresses: []string{},
				ByEgress: []store.EgressStats{}}
			sites[name] = s
		}
		s.URLs += h.URLs
		s.Stored += h.Stored
		s.Failed += h.Failed
		s.Waiting += h.Waiting
		s.Refusals += h.Refusals
		for c, n := range h.Status {
			s.Status[c] += n
		}
		for _, k := range h.Kinds {
			if i := slices.IndexFunc(s.Kinds, func(x store.KindCount) bool { return x.Kind == k.Kind }); i >= 0 {
				s.Kinds[i].Count += k.Count
			} else {
				s.Kinds = append(s.Kinds, k)
			}
		}
		for _, e := range h.Egresses {
			if !slices.Contains(s.Egresses, e) {
				s.Egresses = append(s.Egresses, e)
			}
		}
		for _, e := range h.ByEgress {
			i := slices.IndexFunc(s.ByEgress, func(x store.EgressStats) bool { return x.Egress == e.Egress })
			if i < 0 {
				s.ByEgress = append(s.ByEgress, store.EgressStats{Egress: e.Egress, Status: map[string]int64{}})
				i = len(s.ByEgress) - 1
			}
			s.ByEgress[i].Stored += e.Stored
			s.ByEgress[i].Refusals += e.Refusals
			for c, n := range e.Status {
				s.ByEgress[i].Status[c] += n
			}
		}
	}
	out := make([]store.HostStats, 0, len(sites))
	for _, name := range slices.Sorted(maps.Keys(sites)) {
		s := sites[name]
		slices.SortStableFunc(s.Kinds, func(a, b store.KindCount) int { return cmp.Compare(b.Count, a.Count) })
		slices.Sort(s.Egresses)
		slices.SortFunc(s.ByEgress, func(a, b store.EgressStats) int { return strings.Compare(a.Egress, b.Egress) })
		out = append(out, *s)
	}
	return out
}

// egressRow is one egress of `stats --hosts --by egress`: what came through it,
// over how many hosts, with the hosts that refused it most.
type egressRow struct {
	store.EgressStats
	Hosts        int      `json:"hosts"`
	RefusedHosts []string `json:"refused_hosts"` // by refusals through it, most first (at most 5)
}

// printEgresses is the report per egress: the hosts' by-egress figures added up.
func (r *hostsReport) printEgresses(hosts []store.HostStats, asJSON bool, stdout io.Writer) int {
	by := map[string]*egressRow{}
	refused := map[string]map[string]int64{}
	for _, h := range hosts {
		for _, e := range h.ByEgress {
			row := by[e.Egress]
			if row == nil {
				row = &egressRow{EgressStats: store.EgressStats{Egress: e.Egress, Status: map[string]int64{}}, RefusedHosts: []string{}}
				by[e.Egress] = row
				refused[e.Egress] = map[string]int64{}
			}
			row.Hosts++
			row.Stored += e.Stored
			row.Refusals += e.Refusals
			for c, n := range e.Status {
				row.Status[c] += n
			}
			if e.Refusals > 0 {
				refused[e.Egress][h.Host] = e.Refusals
			}
		}
	}
	rows := make([]egressRow, 0, len(by))
	for _, name := range slices.Sorted(maps.Keys(by)) {
		row := by[name]
		hs := slices.Collect(maps.Keys(refused[name]))
		slices.SortFunc(hs, func(a, b string) int {
			return cmp.Or(cmp.Compare(refused[name][b], refused[name][a]), strings.Compare(a, b))
		})
		row.RefusedHosts = append(row.RefusedHosts, hs[:min(len(hs), 5)]...)
		rows = append(rows, *row)
	}
	needle, invert := strings.ToLower(r.filter), false
	if strings.HasPrefix(needle, "!") {
		needle, invert = needle[1:], true
	}
	rows = slices.DeleteFunc(rows, func(e egressRow) bool {
		return needle != "" && strings.Contains(strings.ToLower(e.Egress), needle) == invert
	})
	if key, ok := egressSortKeys[r.sortBy]; ok {
		slices.SortStableFunc(rows, func(a, b egressRow) int { return cmp.Compare(key(&b), key(&a)) })
	}
	if r.top > 0 && len(rows) > r.top {
		rows = rows[:r.top]
	}
	if asJSON {
		return clikit.WriteJSON(stdout, map[string]any{"by": "egress", "egresses": rows})
	}
	t := table{left: map[int]bool{0: true, 8: true}}
	t.add("EGRESS", "HOSTS", "STORED", "2XX", "3XX", "4XX", "5XX", "REFUSALS", "REFUSED MOST BY")
	for _, e := range rows {
		t.add(e.Egress, e.Hosts, e.Stored, e.Status["2xx"], e.Status["3xx"], e.Status["4xx"], e.Status["5xx"], e.Refusals,
			clikit.Dash(strings.Join(e.RefusedHosts, ",")))
	}
	return clikit.Exit(t.write(stdout) == nil)
}

// table is a report's columns: names left-aligned, figures right-aligned, two
// spaces apart, no trailing blanks (text/tabwriter aligns every cell one way).
type table struct {
	left  map[int]bool // the columns of text
	cells [][]string
}

func (t *table) add(cells ...any) {
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = fmt.Sprint(c)
	}
	t.cells = append(t.cells, row)
}

func (t *table) write(w io.Writer) error {
	var widths []int
	for _, row := range t.cells {
		for i, c := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, row := range t.cells {
		line := make([]string, len(row))
		for i, c := range row {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if t.left[i] {
				line[i] = c + pad
			} else {
				line[i] = pad + c
			}
		}
		b.WriteString(strings.TrimRight(strings.Join(line, "  "), " "))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// egressSortKeys are the --sort figures a row per egress has; the others (urls,
// waiting, failed: a URL has no egress until fetched) keep the egresses by name.
var egressSortKeys = map[string]func(e *egressRow) int64{
	"stored":   func(e *egressRow) int64 { return e.Stored },
	"refusals": func(e *egressRow) int64 { return e.Refusals },
	"4xx":      func(e *egressRow) int64 { return e.Status["4xx"] },
	"5xx":      func(e *egressRow) int64 { return e.Status["5xx"] },
}
