package store

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"
)

// Stats is what `crawlconsole stats --db` prints: a summary of a crawl database. Its
// JSON field names are part of the command-line contract and stay stable.
type Stats struct {
	Path             string      `json:"path"`
	SchemaVersion    int         `json:"schema_version"`
	FileBytes        int64       `json:"file_bytes"` // database file plus WAL
	Counts           Counts      `json:"counts"`
	CompressionRatio float64     `json:"compression_ratio"` // bytes_stored / bytes_compressed
	ErrorKinds       []KindCount `json:"error_kinds"`       // by URL count, descending
	SkippedKinds     []KindCount `json:"skipped_kinds"`     // kinds moved out of ErrorKinds by SeparateSkips
	TopHosts         []HostCount `json:"top_hosts"`         // by URL count, descending
	FirstFetch       *time.Time  `json:"first_fetch"`       // null when no page was stored
	LastFetch        *time.Time  `json:"last_fetch"`
	Lanes            LaneSummary `json:"lanes"`
	Events           int64       `json:"events"`
}

// KindCount is how many URLs last failed with one error kind.
type KindCount struct {
	Kind  string `json:"kind"`
	Count int64  `json:"count"`
}

// HostCount is one host's URLs: all of them and those processed.
type HostCount struct {
	Host      string `json:"host"`
	URLs      int64  `json:"urls"`
	Processed int64  `json:"processed"`
}

// LaneSummary sums up the M1 lane history.
type LaneSummary struct {
	Opened       int64         `json:"opened"`    // lane openings ever recorded
	Open         int64         `json:"open"`      // not retired yet
	Pages        int64         `json:"pages"`     // pages fetched by retired lanes
	MeanLifetime float64       `json:"mean_s"`    // mean seconds a retired lane lived
	ByEgress     []EgressLanes `json:"by_egress"` // by openings, descending
}

// EgressLanes is the lane history of one egress (M3).
type EgressLanes struct {
	Egress string `json:"egress"`
	Opened int64  `json:"opened"`
	Pages  int64  `json:"pages"`
}

// topHosts is how many hosts Stats lists.
const topHosts = 10

// Stats gathers the summary. It scans the urls table for error kinds and hosts, so it
// is meant for the stats command and the end of a crawl, not for every UI frame (use
// Counts there).
func (s *Store) Stats() (Stats, error) {
	st := Stats{Path: s.path, SchemaVersion: SchemaVersion(), ErrorKinds: []KindCount{}, SkippedKinds: []KindCount{},
		TopHosts: []HostCount{}}
	st.Lanes.ByEgress = []EgressLanes{}
	for _, p := range []string{s.path, s.path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			st.FileBytes += fi.Size()
		}
	}
	var err error
	if st.Counts, err = s.Counts(); err != nil {
		return st, err
	}
	if st.Counts.BytesCompressed > 0 {
		st.CompressionRatio = float64(st.Counts.BytesStored) / float64(st.Counts.BytesCompressed)
	}
	ctx := context.Background()
	err = s.each(ctx, `SELECT err_kind, COUNT(*) FROM urls WHERE err_kind != '' AND state != 4
		GROUP BY err_kind ORDER BY 2 DESC, 1`, func(r *sql.Rows) error {
		var k KindCount
		err := r.Scan(&k.Kind, &k.Count)
		st.ErrorKinds = append(st.ErrorKinds, k)
		return err
	})
	if err != nil {
		return st, err
	}
	err = s.each(ctx, fmt.Sprintf(`SELECT host, COUNT(*), SUM(state = 2) FROM urls
		GROUP BY host ORDER BY 2 DESC, 1 LIMIT %d`, topHosts), func(r *sql.Rows) error {
		var h HostCount
		err := r.Scan(&h.Host, &h.URLs, &h.Processed)
		st.TopHosts = append(st.TopHosts, h)
		return err
	})
	if err != nil {
		return st, err
	}
	var first, last sql.NullInt64
	if err := s.rdb.QueryRowContext(ctx, `SELECT MIN(fetched_at), MAX(fetched_at) FROM pages`).
		Scan(&first, &last); err != nil {
		return st, s.readErr(err)
	}
	if first.Valid {
		f, l := fromNanos(first.Int64), fromNanos(last.Int64)
		st.FirstFetch, st.LastFetch = &f, &l
	}
	var lifeSum sql.NullFloat64
	if err := s.rdb.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(retired_at = 0), 0),
		COALESCE(SUM(pages), 0), AVG(CASE WHEN retired_at > 0 THEN (retired_at - opened_at) / 1e9 END)
		FROM lanes`).Scan(&st.Lanes.Opened, &st.Lanes.Open, &st.Lanes.Pages, &lifeSum); err != nil {
		return st, s.readErr(err)
	}
	st.Lanes.MeanLifetime = lifeSum.Float64
	err = s.each(ctx, `SELECT egress, COUNT(*), SUM(pages) FROM lanes
		GROUP BY egress ORDER BY 2 DESC, 1`, func(r *sql.Rows) error {
		var e EgressLanes
		err := r.Scan(&e.Egress, &e.Opened, &e.Pages)
		st.Lanes.ByEgress = append(st.Lanes.ByEgress, e)
		return err
	})
	if err != nil {
		return st, err
	}
	err = s.rdb.QueryRowContext(ctx, `SELECT COUNT(*) FROM events`).Scan(&st.Events)
	return st, s.readErr(err)
}

// SeparateSkips moves the kinds skip says are skips (URLs the crawl chose not to fetch
// or store: robots.txt, scope, ...) from ErrorKinds to SkippedKinds, keeping their
// order. The store records both as a URL's kind; which ones are skips is the
// engine's call (front.IsSkip), so the caller passes it in.
func (st *Stats) SeparateSkips(skip func(kind string) bool) {
	errs := st.ErrorKinds[:0:0]
	for _, k := range st.ErrorKinds {
		if skip(k.Kind) {
			st.SkippedKinds = append(st.SkippedKinds, k)
		} else {
			errs = append(errs, k)
		}
	}
	st.ErrorKinds = errs
}

// each runs query and calls fn per row.
func (s *Store) each(ctx context.Context, query string, fn func(*sql.Rows) error) error {
	rows, err := s.rdb.QueryContext(ctx, query)
	if err != nil {
		return s.readErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return s.readErr(err)
		}
	}
	return s.readErr(rows.Err())
}

// WriteText prints the stats as an aligned, human-readable table.
func (st Stats) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	p := func(format string, a ...any) { fmt.Fprintf(tw, format+"\n", a...) }
	c := st.Counts
	p("database\t%s (schema %d, %s)", st.Path, st.SchemaVersion, humanBytes(st.FileBytes))
	p("urls\t%d", c.URLs)
	for _, r := range []struct {
		name string
		n    int64
	}{{"unprocessed", c.Unprocessed}, {"in progress", c.InProgress}, {"processed", c.Processed},
		{"failed", c.Failed}, {"deferred", c.Deferred}} {
		p("  %s\t%d", r.name, r.n)
	}
	p("pages\t%d", c.Pages)
	p("bytes fetched\t%s", humanBytes(c.BytesStored))
	p("bytes on disk\t%s (%.1fx compression)", humanBytes(c.BytesCompressed), st.CompressionRatio)
	if st.FirstFetch != nil {
		p("first fetch\t%s", st.FirstFetch.UTC().Format(time.RFC3339))
		p("last fetch\t%s", st.LastFetch.UTC().Format(time.RFC3339))
	} else {
		p("first fetch\t-")
	}
	// A lane's count is of responses (any status, stored or not): not "pages",
	// which above are the pages stored.
	p("lanes opened\t%d (%d open now; the closed ones got %s, mean life %.1fs)", st.Lanes.Opened, st.Lanes.Open,
		countOf(st.Lanes.Pages, "response"), st.Lanes.MeanLifetime)
	for _, e := range st.Lanes.ByEgress {
		name := e.Egress
		if name == "" {
			name = "(default)"
		}
		p("  egress %s\t%s, %s", name, countOf(e.Opened, "lane"), countOf(e.Pages, "response"))
	}
	p("events\t%d", st.Events)
	if len(st.ErrorKinds) > 0 {
		p("errors")
		for _, k := range st.ErrorKinds {
			p("  %s\t%d", k.Kind, k.Count)
		}
	}
	if len(st.SkippedKinds) > 0 {
		p("skipped")
		for _, k := range st.SkippedKinds {
			p("  %s\t%d", k.Kind, k.Count)
		}
	}
	if len(st.TopHosts) > 0 {
		p("top hosts\turls\tprocessed")
		for _, h := range st.TopHosts {
			p("  %s\t%d\t%d", h.Host, h.URLs, h.Processed)
		}
	}
	return tw.Flush()
}

// humanBytes formats n with a decimal unit, as the console's header does (the same
// crawl read "16.9 MB" there and "16.1 MiB" here).
func humanBytes(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "kMGTPE"[exp])
}

// WriterBusy is how long the writer goroutine has spent applying operations,
// committing batches and running their post-commit callbacks (LinkResult, the
// caller's code) since Open, not counting time waiting for operations: the serial
// part of every write, and so what bounds the store's write rate.
func (s *Store) WriterBusy() time.Duration { return time.Duration(s.w.busy.Load()) }

// countOf is "1 response", "2 responses".
func countOf(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
