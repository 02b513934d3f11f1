package cli

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/store"
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
	fs.StringVar(&r.by, "by", "host", "with --hosts: one row per `host` or per site")
	fs.StringVar(&r.sortBy, "sort", "urls", "with --hosts: order by `FIGURE`, largest first: urls, stored, failed, waiting, refusals, 4xx, 5xx, or host (by name)")
	fs.StringVar(&r.filter, "filter", "", "with --hosts: only rows whose host or site contains `TEXT` (!TEXT: does not)")
	fs.IntVar(&r.top, "top", 0, "with --hosts: at most `N` rows (0: all)")
}

func (r *hostsReport) run(st *store.Store, asJSON bool, stdout, stderr io.Writer) int {
	if r.by != "host" && r.by != "site" {
		fmt.Fprintf(stderr, "crawlconsole stats: --by %q: give host or site\n", r.by)
		return ExitUsage
	}
	key, ok := hostSortKeys[r.sortBy]
	if !ok && r.sortBy != "host" {
		fmt.Fprintf(stderr, "crawlconsole stats: --sort %q: give one of host, %s\n", r.sortBy, strings.Join(slices.Sorted(maps.Keys(hostSortKeys)), ", "))
		return ExitUsage
	}
	rows, err := st.HostReport()
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole stats: %v\n", err)
		return 1
	}
	if r.by == "site" {
		rows = bySite(rows)
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
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"by": r.by, "hosts": rows}); err != nil {
			return 1
		}
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	name := "HOST"
	if r.by == "site" {
		name = "SITE"
	}
	fmt.Fprintf(tw, "%s\tURLS\tSTORED\tWAITING\tFAILED\t2XX\t3XX\t4XX\t5XX\tREFUSALS\t\n", name)
	for _, h := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", h.Host, h.URLs, h.Stored, h.Waiting, h.Failed,
			h.Status["2xx"], h.Status["3xx"], h.Status["4xx"], h.Status["5xx"], h.Refusals)
	}
	if err := tw.Flush(); err != nil {
		return 1
	}
	// The kinds, one line a row that has any: errors apart from skips (chosen).
	for _, h := range rows {
		var errs, skips []string
		for _, k := range h.Kinds {
			item := fmt.Sprintf("%s=%d", k.Kind, k.Count)
			if engine.IsSkip(k.Kind) {
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
			s = &store.HostStats{Host: name, Site: name, Status: map[string]int64{}, Kinds: []store.KindCount{}, Egresses: []string{}}
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
	}
	out := make([]store.HostStats, 0, len(sites))
	for _, name := range slices.Sorted(maps.Keys(sites)) {
		s := sites[name]
		slices.SortStableFunc(s.Kinds, func(a, b store.KindCount) int { return cmp.Compare(b.Count, a.Count) })
		slices.Sort(s.Egresses)
		out = append(out, *s)
	}
	return out
}
