package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/crawlconsole/crawlconsole/store"
)

// runStats implements `crawlconsole stats --db PATH [--json]`: what a crawl store holds.
func runStats(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("stats", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", "", "SQLite store `PATH` to read")
	asJSON := fs.Bool("json", false, "print one JSON object instead of a table")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: crawlconsole stats --db PATH [--json]\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return ExitUsage
	}
	if *db == "" {
		fmt.Fprintln(stderr, "crawlconsole stats: --db PATH is required")
		return ExitUsage
	}
	if _, err := os.Stat(*db); err != nil {
		fmt.Fprintf(stderr, "crawlconsole stats: --db %s: no such store\n", *db)
		return ExitUsage
	}
	// Read-only: works beside a crawl writing into the same file, and changes nothing.
	// Only a database an older version wrote is opened for writing, to migrate it.
	st, err := store.OpenReadOnly(*db)
	if errors.Is(err, store.ErrOldSchema) {
		st, err = store.Open(*db, store.Options{})
	}
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole stats: %v\n", err)
		return 1
	}
	defer st.Close()
	s, err := st.Stats()
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole stats: %v\n", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(s); err != nil {
			return 1
		}
		return 0
	}
	if err := s.WriteText(stdout); err != nil {
		return 1
	}
	return 0
}
