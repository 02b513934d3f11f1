package store

import (
	"context"
	"database/sql"
	"maps"
	"slices"
	"strings"
)

// HostStats is one host in `stats --hosts`: what the store holds of it. Its JSON
// field names are part of the command line's contract.
type HostStats struct {
	Host    string           `json:"host"`
	Site    string           `json:"site"`    // its declared site, "" for none
	URLs    int64            `json:"urls"`    // URLs of the host the crawl took
	Stored  int64            `json:"stored"`  // pages stored
	Failed  int64            `json:"failed"`  // URLs that ended failed or skipped
	Waiting int64            `json:"waiting"` // URLs not done: queued, in progress or deferred
	Status  map[string]int64 `json:"status_classes"`
	// Kinds are the URLs' last error or skip kinds with their counts, most first.
	Kinds    []KindCount `json:"kinds"`
	Refusals int64       `json:"refusals"` // answers punished as anti-bot refusals
	Egresses []string    `json:"egresses"` // the egresses its stored pages came through
	// ByEgress splits its stored pages and refusals by the egress they came
	// through, in egress order: a host that refuses one egress and not another shows.
	ByEgress []EgressStats `json:"by_egress"`
}

// EgressStats is what one egress brought of a host (or, added up, of the crawl).
type EgressStats struct {
	Egress   string           `json:"egress"` // "direct" without rotation
	Stored   int64            `json:"stored"`
	Status   map[string]int64 `json:"status_classes"`
	Refusals int64            `json:"refusals"`
}

// egress returns h's row for the egress named e, made if new.
func (h *HostStats) egress(e string) *EgressStats {
	if e == "" {
		e = "direct"
	}
	i, found := slices.BinarySearchFunc(h.ByEgress, e, func(x EgressStats, e string) int { return strings.Compare(x.Egress, e) })
	if !found {
		h.ByEgress = slices.Insert(h.ByEgress, i, EgressStats{Egress: e, Status: map[string]int64{}})
	}
	return &h.ByEgress[i]
}

// HostReport reads the hosts report from the store: per host its URLs by state, the
// status classes of its stored pages, its URLs' kinds and its refusals, in host
// order. Like Stats it scans the urls table: for the stats command, not a UI frame.
func (s *Store) HostReport() ([]HostStats, error) {
	ctx := context.Background()
	hosts := map[string]*HostStats{}
	get := func(h string) *HostStats {
		if r := hosts[h]; r != nil {
			return r
		}
		r := &HostStats{Host: h, Status: map[string]int64{}, Kinds: []KindCount{}, Egresses: []string{}, ByEgress: []EgressStats{}}
		hosts[h] = r
		return r
	}
	err := s.each(ctx, `SELECT host, MAX(site), COUNT(*), SUM(state = 2), SUM(state = 3), SUM(state IN (0, 1, 4))
		FROM urls GROUP BY host`, func(r *sql.Rows) error {
		var h HostStats
		var processed int64
		if err := r.Scan(&h.Host, &h.Site, &h.URLs, &processed, &h.Failed, &h.Waiting); err != nil {
			return err
		}
		row := get(h.Host)
		row.Site, row.URLs, row.Failed, row.Waiting = h.Site, h.URLs, h.Failed, h.Waiting
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = s.each(ctx, `SELECT host, err_kind, COUNT(*) FROM urls WHERE err_kind != '' AND state != 4
		GROUP BY host, err_kind ORDER BY 1, 3 DESC, 2`, func(r *sql.Rows) error {
		var h string
		var k KindCount
		if err := r.Scan(&h, &k.Kind, &k.Count); err != nil {
			return err
		}
		row := get(h)
		row.Kinds = append(row.Kinds, k)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = s.each(ctx, `SELECT u.host, p.status / 100, p.egress, COUNT(*) FROM urls u JOIN pages p ON p.id = u.page
		GROUP BY 1, 2, 3`, func(r *sql.Rows) error {
		var h, egress string
		var class int
		var n int64
		if err := r.Scan(&h, &class, &egress, &n); err != nil {
			return err
		}
		row := get(h)
		row.Stored += n
		name := "other"
		if class >= 1 && class <= 5 {
			name = string(rune('0'+class)) + "xx"
		}
		row.Status[name] += n
		if egress == "" {
			egress = "direct"
		}
		eg := row.egress(egress)
		eg.Stored += n
		eg.Status[name] += n
		if !slices.Contains(row.Egresses, egress) {
			row.Egresses = append(row.Egresses, egress)
			slices.Sort(row.Egresses)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = s.each(ctx, `SELECT host, egress, COUNT(*) FROM refusals GROUP BY host, egress`, func(r *sql.Rows) error {
		var h, egress string
		var n int64
		if err := r.Scan(&h, &egress, &n); err != nil {
			return err
		}
		row := get(h)
		row.Refusals += n
		row.egress(egress).Refusals += n
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]HostStats, 0, len(hosts))
	for _, h := range slices.Sorted(maps.Keys(hosts)) {
		out = append(out, *hosts[h])
	}
	return out, nil
}
