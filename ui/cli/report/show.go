package report

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/page/change"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/store"
	"github.com/crawlconsole/crawlconsole/ui/cli/clikit"
)

// Show implements `crawlconsole show --db PATH URL [--body]`: what the crawl knows
// of one URL, read-only beside a running crawl like stats.
func Show(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("show", flag.ContinueOnError)
	fs.SetOutput(stderr)
	db := fs.String("db", "", "SQLite store `PATH` to read")
	body := fs.Bool("body", false, "print the stored body after the report")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: crawlconsole show --db PATH [--body] URL\n\nFlags:\n")
		fs.PrintDefaults()
	}
	// Flags may come after the URL too (show URL --body).
	var rest []string
	for len(args) > 0 {
		if err := clikit.Parse(fs, args, stdout); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return clikit.ExitUsage
		}
		if fs.NArg() == 0 {
			break
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch {
	case *db == "":
		return clikit.Usage(stderr, "show", "--db PATH is required")
	case len(rest) != 1:
		return clikit.Usage(stderr, "show", "give exactly one URL")
	}
	if _, err := os.Stat(*db); err != nil {
		fmt.Fprintf(stderr, "crawlconsole show: --db %s: no such store\n", *db)
		return clikit.ExitUsage
	}
	st, err := openForReading(*db)
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole show: %v\n", err)
		return 1
	}
	defer st.Close()
	raw := rest[0]
	u, err := st.URLState(raw)
	if errors.Is(err, store.ErrNotFound) {
		// The store keeps URLs normalised (RFC 3986 normal form): try that form.
		n, nerr := frontier.Normalize(raw)
		var bad *frontier.URLError
		if errors.As(nerr, &bad) {
			// No crawl stores what does not normalise (a host without its scheme,
			// say): "not in the store" would send the operator looking for a crawl
			// that missed it.
			if fix := schemeFix(st, rest[0]); fix != "" {
				fmt.Fprintf(stderr, "crawlconsole show: %q has no scheme: give it as %s\n", rest[0], fix)
				return clikit.ExitUsage
			}
			fmt.Fprintf(stderr, "crawlconsole show: %q is not a URL a crawl stores: %s; give it whole, e.g. https://www.example.org/page\n", rest[0], bad.Reason)
			return clikit.ExitUsage
		}
		if nerr == nil && n != raw {
			raw = n
			u, err = st.URLState(raw)
		}
	}
	if errors.Is(err, store.ErrNotFound) {
		fmt.Fprintf(stderr, "crawlconsole show: %s is not in %s (never discovered)\n", rest[0], *db)
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "crawlconsole show: %v\n", err)
		return 1
	}
	stored, perr := st.Page(raw)
	if perr != nil && !errors.Is(perr, store.ErrNotFound) {
		fmt.Fprintf(stderr, "crawlconsole show: %v\n", perr)
	}
	hasPage := perr == nil
	capt, cerr := st.LatestCapture(raw)
	rv, rerr := st.Revisit(raw)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	p := func(format string, a ...any) { fmt.Fprintf(tw, format+"\n", a...) }
	p("url\t%s", u.URL)
	p("state\t%s", u.State)
	p("lane\t%d", u.Lane)
	p("attempts\t%d", u.Attempts)
	p("error kind\t%s", clikit.Dash(u.ErrKind))
	p("host\t%s", u.Host)
	p("class / site / keyword\t%s / %s / %s", clikit.Dash(u.Class), clikit.Dash(u.Site), clikit.Dash(u.Keyword))
	p("depth\t%d", u.Depth)
	p("discovered\t%s", stamp(u.DiscoveredAt))
	p("updated\t%s", stamp(u.UpdatedAt))
	if u.State == store.Deferred {
		p("deferred until\t%s", stamp(u.DeferredUntil))
	}
	if hasPage {
		p("fetched\t%s", stamp(stored.FetchedAt))
		p("status\t%d", stored.Status)
		p("content type\t%s", clikit.Dash(stored.ContentType))
		p("bytes\t%d", stored.Bytes)
		p("fetch time\t%s", stored.Duration)
		p("egress\t%s", clikit.Dash(stored.Egress))
		if stored.FinalURL != "" {
			p("final url\t%s", stored.FinalURL)
		}
		p("simhash\t%016x", stored.SimHash)
		showMeta(p, st, raw, stored)
	} else {
		p("page\tnot stored")
	}
	if rerr == nil {
		p("revisit\tclass %s, t %s, x %d, fetches %d", clikit.Dash(rv.Class), rv.T.Round(time.Second), rv.X, rv.Fetches)
		p("  last / next\t%s / %s", stamp(rv.Last), nextStamp(rv.Next))
		if rv.Distance >= 0 {
			p("  last distance\t%d", rv.Distance)
		} else {
			p("  last distance\t-")
		}
	} else {
		p("revisit\t-")
	}
	// Why the last change counted, and what changed in the main text.
	var diff string
	if c, err := st.RevisitChange(raw); err == nil && c != nil {
		if c.ChangeDistance >= 0 {
			p("last change\t%s, distance %d, %s", stamp(c.ChangeAt), c.ChangeDistance, revisit.ChangeReason(c.ChangeReason))
		} else {
			p("last change\tnone seen yet")
		}
		if c.Fallback {
			p("  article\tnone recognised (fingerprint of the visible text)")
		}
		if hasPage {
			if now, ok := page.PageText(stored.Body, stored.ContentType); ok {
				diff = change.Summarize(c.PrevText, now)
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return 1
	}
	if diff != "" {
		fmt.Fprintln(stdout, "\nmain text, before the last change -> now:")
		for _, line := range strings.Split(diff, "\n") {
			fmt.Fprintln(stdout, "  "+line)
		}
	}
	if cerr == nil {
		// A page fetched through redirects has its exchange under its final URL;
		// the URL's own is the first hop (a walkthrough saw its 302 shown as the
		// last exchange of a page stored with status 200).
		if hasPage && stored.FinalURL != "" && stored.FinalURL != raw {
			if final, err := st.LatestCapture(stored.FinalURL); err == nil {
				showExchange(stdout, "first hop", capt)
				capt = final
			}
		}
		showExchange(stdout, "last exchange", capt)
	} else if hasPage {
		fmt.Fprintln(stdout, "\nheaders: not kept (stored before captures existed); validators:")
		fmt.Fprintf(stdout, "  ETag: %s\n  Last-Modified: %s\n", clikit.Dash(stored.ETag), clikit.Dash(stored.LastModified))
	}
	// What was punished as a refusal, and on what evidence.
	if refs, err := st.Refusals(raw); err == nil && len(refs) > 0 {
		fmt.Fprintf(stdout, "\nrefusals (%d):\n", len(refs))
		for _, r := range refs {
			vendor := r.Vendor
			if vendor == "" {
				vendor = "no vendor"
			}
			fmt.Fprintf(stdout, "  %s  %d via %s  %s: %s\n", stamp(r.At), r.Status, clikit.Dash(r.Egress), vendor, clikit.Dash(r.Evidence))
			if r.Action != "" {
				fmt.Fprintf(stdout, "    then: %s\n", r.Action)
			}
		}
	}
	if *body {
		switch {
		case hasPage:
			fmt.Fprintf(stdout, "\nbody (%d bytes):\n", len(stored.Body))
			stdout.Write(stored.Body)
			if len(stored.Body) > 0 && stored.Body[len(stored.Body)-1] != '\n' {
				fmt.Fprintln(stdout)
			}
		case perr != nil && !errors.Is(perr, store.ErrNotFound):
			fmt.Fprintln(stdout, "\nbody: damaged in the store (see the error above)")
		default:
			fmt.Fprintln(stdout, "\nbody: none stored")
		}
	}
	return 0
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// nextStamp shows a revisit due time; the far-future sentinel means "queued now" or
// "window closed" (store: next is set to 2200-01-01 while a page waits).
func nextStamp(t time.Time) string {
	if t.Year() >= 2200 {
		return "not scheduled (queued, or its class window closed)"
	}
	return stamp(t)
}

// indent prints a CRLF head, two spaces in.
func indent(w io.Writer, head string) {
	for line := range strings.SplitSeq(strings.TrimRight(head, "\r\n"), "\r\n") {
		fmt.Fprintf(w, "  %s\n", line)
	}
}

// showExchange prints one kept exchange: when, from where, the request and response
// heads.
func showExchange(w io.Writer, label string, c store.Capture) {
	fmt.Fprintf(w, "\n%s (%s, from %s", label, stamp(c.FetchedAt), clikit.Dash(c.RemoteIP))
	if c.Egress != "" {
		fmt.Fprintf(w, " via %s", c.Egress)
	}
	fmt.Fprintf(w, ", %s):\n", c.URL)
	indent(w, c.RequestHead)
	fmt.Fprintln(w)
	indent(w, c.StatusLine+"\r\n"+c.ResponseHead)
	if c.Decoded != "" {
		fmt.Fprintf(w, "  (body kept decoded from %s)\n", c.Decoded)
	}
}

// showMeta prints a stored page's metadata, each field with its source; a page
// stored before metadata was kept has it read from its stored body.
func showMeta(p func(string, ...any), st *store.Store, url string, stored store.Page) {
	m, err := st.PageMeta(url)
	note := ""
	if err == nil && m == nil {
		final := stored.FinalURL
		if final == "" {
			final = stored.URL
		}
		md := page.Parse(stored.Body, stored.ContentType, nil).Meta(final, stored.FetchedAt)
		m = &store.PageMeta{Published: md.Published.String(), PublishedFrom: string(md.Published.From),
			Modified: md.Modified.String(), ModifiedFrom: string(md.Modified.From),
			Headline: md.Headline.Value, HeadlineFrom: string(md.Headline.From),
			Authors: md.Authors, AuthorsFrom: string(md.AuthorsFrom),
			Language: md.Language.Value, LanguageFrom: string(md.Language.From),
			Canonical: md.Canonical.Value, CanonicalFrom: string(md.Canonical.From)}
		note = ", read from the stored body"
	}
	if m == nil {
		return
	}
	field := func(name, val, from string) {
		if val == "" {
			p("%s\t-", name)
			return
		}
		p("%s\t%s  (%s%s)", name, val, from, note)
	}
	field("published", m.Published, m.PublishedFrom)
	field("modified", m.Modified, m.ModifiedFrom)
	field("headline", m.Headline, m.HeadlineFrom)
	field("authors", strings.Join(m.Authors, "; "), m.AuthorsFrom)
	field("language", m.Language, m.LanguageFrom)
	field("canonical", m.Canonical, m.CanonicalFrom)
}

// schemeFix is the URL raw means when it is a host written without its scheme
// ("example.com:8080/", which a URL parser reads as the scheme "example.com"): the
// https:// form when the store has that one and not the http:// one, the http://
// form otherwise (with "(not in the store either)" when neither is there); "" when
// raw is no such host.
func schemeFix(st *store.Store, raw string) string {
	fix := clikit.SchemeFix(raw)
	if fix == "" {
		return ""
	}
	for _, u := range []string{fix, "https://" + strings.TrimPrefix(fix, "http://")} {
		if n, err := frontier.Normalize(u); err == nil {
			if _, err := st.URLState(n); err == nil {
				return n
			}
		}
	}
	return fix + " (not in the store either)"
}
