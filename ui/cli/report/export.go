package report

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/export"
	"github.com/crawlconsole/crawlconsole/engine/plural"
	"github.com/crawlconsole/crawlconsole/store"
	"github.com/crawlconsole/crawlconsole/ui/cli/clikit"
)

// Export implements `crawlconsole export --db PATH --format warc|jsonl --out DIR|-
// [--since TIME] [--max-size SIZE]`: the crawl's data out, read-only like stats.
func Export(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", "", "SQLite store `PATH` to read")
	format := fs.String("format", "", "export `FORMAT`: warc (WARC 1.1, gzip per record) or jsonl (one JSON object per page)")
	out := fs.String("out", "", "`DIR` to write into (created if missing): WARC files, or pages.jsonl; or - for stdout")
	since := fs.String("since", "", "export only what was fetched at or after `TIME`: RFC 3339, YYYY-MM-DD (UTC), or a duration ago (24h)")
	maxSize := fs.String("max-size", "1GB", "rotate WARC files at about this `SIZE` (e.g. 1GB, 500MB, 1GiB)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: crawlconsole export --db PATH --format warc|jsonl --out DIR|- [--since TIME] [--max-size 1GB]\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := clikit.Parse(fs, args, stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return clikit.ExitUsage
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "crawlconsole export: "+format+"\n", a...)
		return clikit.ExitUsage
	}
	if fs.NArg() > 0 {
		return bad("unexpected argument %q (flags only)", fs.Arg(0))
	}
	switch {
	case *db == "":
		return clikit.Usage(stderr, "export", "--db PATH is required")
	case *format == "":
		return clikit.Usage(stderr, "export", "--format is required: warc or jsonl")
	case *format != "warc" && *format != "jsonl":
		return bad("--format %q is not known: use warc or jsonl", *format)
	case *out == "":
		return clikit.Usage(stderr, "export", "--out is required: a directory, or - for stdout")
	}
	sinceT, err := parseSince(*since, time.Now())
	if err != nil {
		return bad("--since %q: %v", *since, err)
	}
	size, err := parseSize(*maxSize)
	if err != nil {
		return bad("--max-size %q: %v", *maxSize, err)
	}
	if *format == "jsonl" && clikit.Set(fs)["max-size"] {
		return bad("--max-size rotates WARC files only: a JSONL export is one file (split it with split -l if needed)")
	}
	if _, err := os.Stat(*db); err != nil {
		return bad("--db %s: no such store", *db)
	}
	// WARC files, or JSONL's one stream (DIR/pages.jsonl), go into DIR. A
	// directory this export created is removed again if it fails with it empty.
	created := false
	if *out != "-" {
		if looksLikeAFile(*out) {
			return bad("--out %s: names a file, and the export writes into a directory (DIR/pages.jsonl, or its WARC files there): give the directory, or - for stdout", *out)
		}
		if created, err = checkOutDir(*out); err != nil {
			return bad("--out %s: %v", *out, err)
		}
	}
	failed := func(code int) int {
		if created {
			os.Remove(*out) // only an empty directory goes
		}
		return code
	}
	st, err := openForReading(*db)
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole export: %v\n", err)
		return failed(1)
	}
	defer st.Close()
	warn := func(msg string) { fmt.Fprintf(stderr, "crawlconsole export: warning: %s\n", msg) }
	var rep export.Report
	start := time.Now()
	switch {
	case *format == "warc":
		o := export.WARCOptions{Since: sinceT, MaxSize: size, Warn: warn, Context: ctx}
		if *out == "-" {
			o.Stdout = stdout
		} else {
			o.Dir = *out
		}
		rep, err = export.WARC(st, o)
	case *out == "-":
		rep, err = export.JSONL(st, stdout, export.JSONLOptions{Since: sinceT, Warn: warn, Context: ctx})
	default:
		path := jsonlPath(*out, time.Now())
		rep, err = jsonlFile(st, path, export.JSONLOptions{Since: sinceT, Warn: warn, Context: ctx})
		if err == nil {
			rep.Files = []string{path}
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole export: %v\n", err)
		return failed(1)
	}
	secs := time.Since(start).Seconds()
	if *format == "warc" {
		where := "in " + plural.Count(len(rep.Files), "file")
		if *out == "-" {
			where = "to stdout" // one gzip stream, no file
		}
		fmt.Fprintf(stderr, "exported %s (%s rebuilt from before captures) as %s: %s, %s, %s, %s; %s; %.1fs\n",
			plural.Count(rep.Pages, "exchange"), plural.Count(rep.Rebuilt, "page"), plural.Count(rep.Records, "record"), plural.Count(rep.Responses, "response"),
			plural.Count(rep.Requests, "request"), plural.Count(rep.Revisits, "revisit"), where, plural.Count(rep.Warnings, "warning"), secs)
		if rep.Duplicates > 0 {
			fmt.Fprintf(stderr, "  %d of the revisits %s the same payload under another URL: %s not repeated\n", rep.Duplicates, plural.Noun(rep.Duplicates, "is", "are"), plural.Count(rep.BytesSaved, "byte"))
		}
	} else {
		fmt.Fprintf(stderr, "exported %s; %s; %.1fs\n", plural.Count(rep.Pages, "page"), plural.Count(rep.Warnings, "warning"), secs)
	}
	for _, f := range rep.Files {
		fmt.Fprintf(stderr, "  %s\n", f)
	}
	return 0
}

// jsonlPath is DIR/pages.jsonl, or beside an earlier export's, pages-TIME.jsonl
// (then -2, -3...): a second export into the same directory (a daily --since
// export) replaced the first.
func jsonlPath(dir string, now time.Time) string {
	path := filepath.Join(dir, "pages.jsonl")
	for i := 1; ; i++ {
		if _, err := os.Stat(path); err != nil { // free (or unreadable: Create says why)
			return path
		}
		name := "pages-" + now.UTC().Format("20060102T150405Z")
		if i > 1 {
			name += "-" + strconv.Itoa(i)
		}
		path = filepath.Join(dir, name+".jsonl")
	}
}

// jsonlFile writes the JSONL export to path through a temporary name, renamed when
// complete: a reader never sees half a file.
func jsonlFile(st *store.Store, path string, o export.JSONLOptions) (export.Report, error) {
	tmp := path + ".open"
	f, err := os.Create(tmp)
	if err != nil {
		return export.Report{}, err
	}
	rep, err := export.JSONL(st, f, o)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return rep, err
	}
	return rep, os.Rename(tmp, path)
}

// openForReading opens a crawl database read-only, so it works
// beside a running crawl; only a database an older crawlconsole wrote is opened for
// writing, to migrate it (its pages then export from what the old schema kept).
func openForReading(path string) (*store.Store, error) {
	st, err := store.OpenReadOnly(path)
	if errors.Is(err, store.ErrOldSchema) {
		st, err = store.Open(path, store.Options{})
	}
	return st, err
}

// checkOutDir makes sure dir exists (creating it) and that a file can be created in it.
func checkOutDir(dir string) (created bool, err error) {
	fi, err := os.Stat(dir)
	if err == nil && !fi.IsDir() {
		return false, errors.New("not a directory")
	}
	created = err != nil
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("cannot create it: %w", errors.Unwrap(err))
	}
	f, err := os.CreateTemp(dir, ".crawlconsole-probe-*")
	if err != nil {
		if created {
			os.Remove(dir)
		}
		return false, errors.New("not writable (check its permissions, or pick another directory)")
	}
	f.Close()
	os.Remove(f.Name())
	return created, nil
}

// parseSince reads --since: RFC 3339, a date (midnight UTC), or a duration back from now.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, errors.New("not a time: give RFC 3339 (2026-11-25T08:00:00Z), a date (2026-11-25) or a duration ago (24h)")
}

// parseSize reads a size: a number of bytes with an optional unit, decimal (KB, MB,
// GB) or binary (KiB, MiB, GiB).
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	u := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, x := range units {
		if strings.HasSuffix(u, x.suffix) {
			u, mult = strings.TrimSpace(strings.TrimSuffix(u, x.suffix)), x.mult
			break
		}
	}
	f, err := strconv.ParseFloat(u, 64)
	if err != nil || f <= 0 {
		return 0, errors.New("not a size: give e.g. 1GB, 500MB or 1GiB")
	}
	if f*float64(mult) < 64<<10 {
		return 0, errors.New("below 64 KiB: a WARC file would hold a record or two")
	}
	return int64(f * float64(mult)), nil
}

// looksLikeAFile reports an --out that does not exist and ends like an export's
// file (pages.jsonl, a .warc.gz): taken for a directory, it would be created under
// that name with the export inside.
func looksLikeAFile(out string) bool {
	if _, err := os.Stat(out); err == nil {
		return false
	}
	for _, ext := range []string{".jsonl", ".json", ".warc", ".gz"} {
		if strings.HasSuffix(strings.ToLower(out), ext) {
			return true
		}
	}
	return false
}
