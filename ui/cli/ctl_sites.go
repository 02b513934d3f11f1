package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/attach"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/cli/clikit"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// ctlSite is one site of `ctl sites`: a declared site as the Sites pane shows it,
// or a registered domain no declared site holds whose feeds or sitemaps the crawl
// reads (Declared false: only its discovery fields are filled). Its field names
// are part of the command-line contract.
type ctlSite struct {
	Site     string   `json:"site"`
	Declared bool     `json:"declared"`
	Kind     string   `json:"kind,omitempty"`
	Class    string   `json:"class,omitempty"`
	Entry    string   `json:"entry,omitempty"`
	Keywords []string `json:"keywords"`
	Stored   int64    `json:"stored"`
	NewHour  int      `json:"new_1h"`
	NewDay   int      `json:"new_1d"`
	// DelayS is the median publish-to-store delay in seconds, to the millisecond
	// (the pane's DELAY); 0: no page published while the crawl watched has been stored.
	DelayS   float64  `json:"delay_s"`
	Feeds    []string `json:"feeds"`
	Sitemaps []string `json:"sitemaps"`
	// Found is how many URLs its feeds and sitemaps listed, every read counted (a
	// URL listed by two reads counts twice): what they gave.
	Found   int64             `json:"found"`
	Covered map[string]string `json:"covered,omitempty"`
	// Warnings counts, by kind, the problems its documents were read with (a
	// lying encoding, cut off, bad dates): read, but not all as the site meant.
	Warnings map[string]int `json:"warnings,omitempty"`
	// Problems is, per feed or sitemap whose last read or fetch yielded nothing,
	// why: what the operator has to act on.
	Problems     map[string]string `json:"problems,omitempty"`
	DatesTrusted string            `json:"dates_trusted"` // yes, no, or "" while discovery has nothing on it
	DatesWhy     string            `json:"dates_why,omitempty"`
	// Waits is why its URLs wait on its robots.txt, in the Sites pane's words
	// ("robots → HOST held", "robots.txt unreachable"); WaitsBehind is that held
	// host. Both empty when they do not wait.
	Waits       string `json:"waits,omitempty"`
	WaitsBehind string `json:"waits_behind,omitempty"`
}

// ctlSites is `ctl sites`: what the console's Sites pane shows, its rows for the
// registered domains no site declares among them, for every site at once.
func ctlSites(client *attach.Client, url, prefix string, asJSON bool, stdout, stderr io.Writer) int {
	s, code := snapshotOrFail(client, url, prefix, stderr)
	if code != 0 {
		return code
	}
	return printSites(s, asJSON, stdout)
}

func sitesOf(s view.Snapshot) []ctlSite {
	out := []ctlSite{}
	declared := map[string]bool{}
	if s.Sites != nil {
		for _, r := range s.Sites.Sites {
			declared[r.Name] = true
			out = append(out, ctlSite{Site: r.Name, Declared: true, Kind: r.Kind, Class: r.Class, Entry: r.Entry,
				Keywords: append([]string{}, r.Keywords...), Stored: r.Stored, NewHour: r.NewHour, NewDay: r.NewDay,
				DelayS: r.PublishDelay.Round(time.Millisecond).Seconds(), Feeds: append([]string{}, r.Feeds...), Sitemaps: append([]string{}, r.Sitemaps...),
				Covered: r.Covered, Problems: r.Problems, DatesTrusted: r.DatesTrusted, Waits: r.Waits, WaitsBehind: r.WaitsBehind})
		}
	}
	for i := range out {
		for _, d := range s.Discovery {
			if d.Site != out[i].Site {
				continue
			}
			out[i].Found, out[i].Warnings = d.Found, d.Warnings
			if !d.DatesTrusted {
				out[i].DatesWhy = d.Why
			}
		}
	}
	for _, d := range s.Discovery {
		// The pane's rule (withUndeclared): a domain with no feed, sitemap or
		// problem has no row.
		if declared[d.Site] || len(d.Feeds)+len(d.Sitemaps)+len(d.Problems) == 0 {
			continue
		}
		c := ctlSite{Site: d.Site, Keywords: []string{}, Feeds: append([]string{}, d.Feeds...),
			Sitemaps: append([]string{}, d.Sitemaps...), Found: d.Found, Covered: d.Covered, Problems: d.Problems, Warnings: d.Warnings}
		if len(c.Feeds)+len(c.Sitemaps) > 0 {
			c.DatesTrusted = yesNo(d.DatesTrusted)
			if !d.DatesTrusted {
				c.DatesWhy = d.Why
			}
		}
		out = append(out, c)
	}
	return out
}

// printSites writes the sites as a table, then one line per site waiting on its
// robots.txt and why (the table's ROBOTS says held or unreachable; the line names
// the held host, whatever its length), one per feed or sitemap that yielded
// nothing and why (the pane's "yielded nothing", for every site at once), and per
// site the warnings its documents were read with.
func printSites(s view.Snapshot, asJSON bool, stdout io.Writer) int {
	list := sitesOf(s)
	if asJSON {
		return clikit.WriteJSON(stdout, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(stdout, "no site declared, and no feed or sitemap read yet")
		return 0
	}
	// FOUND, then ROBOTS, come last: added after the others were in place, they leave
	// their positions as they were for a script that reads the columns by position.
	var tb clikit.Table
	tb.Row("SITE", "KIND", "STORED", "1H", "1D", "DELAY", "FEEDS", "SITEMAPS", "DATES", "PROBLEMS", "FOUND", "ROBOTS")
	for _, c := range list {
		kind, stored, hour, day, delay := "-", "-", "-", "-", "-"
		if c.Declared {
			kind, stored, hour, day = c.Kind, strconv.FormatInt(c.Stored, 10), strconv.Itoa(c.NewHour), strconv.Itoa(c.NewDay)
			d := time.Duration(c.DelayS * float64(time.Second))
			if s, ok := pane.ShortDelay(d); ok {
				delay = s
			} else if d > 0 {
				delay = d.Round(time.Second).String()
			}
		}
		robots := "-"
		if c.WaitsBehind != "" {
			robots = "held"
		} else if c.Waits != "" {
			robots = "unreachable"
		}
		tb.Row(c.Site, kind, stored, hour, day, delay, strconv.Itoa(len(c.Feeds)), strconv.Itoa(len(c.Sitemaps)),
			clikit.Dash(c.DatesTrusted), strconv.Itoa(len(c.Problems)), strconv.FormatInt(c.Found, 10), robots)
	}
	if tb.Write(stdout) != nil {
		return 1
	}
	for _, c := range list {
		if c.Waits != "" {
			fmt.Fprintf(stdout, "%s: waits %s\n", c.Site, c.Waits)
		}
	}
	for _, c := range list {
		for _, u := range slices.Sorted(maps.Keys(c.Problems)) {
			fmt.Fprintf(stdout, "%s: %s yielded nothing: %s\n", c.Site, u, c.Problems[u])
		}
		if len(c.Warnings) > 0 {
			var kinds []string
			for _, k := range slices.Sorted(maps.Keys(c.Warnings)) {
				kinds = append(kinds, fmt.Sprintf("%s %d", k, c.Warnings[k]))
			}
			fmt.Fprintf(stdout, "%s: read with warnings: %s\n", c.Site, strings.Join(kinds, ", "))
		}
		if c.DatesTrusted == "no" && c.DatesWhy != "" {
			fmt.Fprintf(stdout, "%s: dates not trusted: %s\n", c.Site, strings.TrimSpace(c.DatesWhy))
		}
	}
	return 0
}
