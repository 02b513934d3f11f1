package cli

import (
	"fmt"
	"io"
	"maps"
	"net/netip"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/plural"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// Without a console, the engine's warnings (the Log pane's WARN and ERROR rows)
// reach the operator on stderr: each distinct warning once, as it happens, and at
// the end a count of those that came again. Warnings differing only in their host,
// URLs and numbers (the SSRF guard's, one per refused host) are one warning.

const (
	// warnLinesMax is how many distinct warnings are printed whole; the rest are
	// counted at the end (the store's event table keeps them all).
	warnLinesMax = 20
	// warnTextMax is the longest warning printed whole; a longer one is cut with
	// its length said.
	warnTextMax = 600
	// eventsBatch is how many events one read of the ring takes.
	eventsBatch = 256
)

// warnShape is one distinct warning: its first text and how often it came.
type warnShape struct {
	first string
	level view.Level
	n     int
	hosts []string // the first few hosts it named
}

// warnReporter prints an engine's warnings on w as they are read from its events.
type warnReporter struct {
	w      io.Writer
	who    string // what each line begins with: "crawlconsole" ("worker b1" for a worker)
	after  uint64
	shapes map[string]*warnShape
	order  []string // shapes in the order first seen
	hidden int      // distinct warnings past warnLinesMax, not printed
}

func newWarnReporter(w io.Writer) *warnReporter {
	return &warnReporter{w: w, who: "crawlconsole", shapes: map[string]*warnShape{}}
}

// skip marks msgs as printed already (before the start).
func (r *warnReporter) skip(msgs []string) {
	for _, m := range msgs {
		key := warnKey(view.Event{Level: view.LevelWarn, Msg: m})
		if r.shapes[key] == nil {
			r.shapes[key] = &warnShape{first: m, level: view.LevelWarn}
		}
	}
}

// drain reads the events logged since the last call and prints the new warnings.
func (r *warnReporter) drain(ctrl control.Control) {
	for {
		evs := ctrl.EventsSince(r.after, eventsBatch)
		for _, ev := range evs {
			r.after = ev.Seq
			if ev.Level >= view.LevelWarn {
				r.add(ev)
			}
		}
		if len(evs) < eventsBatch {
			return
		}
	}
}

func (r *warnReporter) add(ev view.Event) {
	key := warnKey(ev)
	s := r.shapes[key]
	if s == nil {
		s = &warnShape{first: ev.Msg, level: ev.Level}
		r.shapes[key] = s
		r.order = append(r.order, key)
		if len(r.order) <= warnLinesMax {
			fmt.Fprintf(r.w, "%s: %s: %s\n", r.who, levelWord(ev.Level), cutText(ev.Msg, warnTextMax))
		} else {
			r.hidden++
		}
	}
	s.n++
	if ev.Host != "" && len(s.hosts) < 4 && !contains(s.hosts, ev.Host) {
		s.hosts = append(s.hosts, ev.Host)
	}
}

// finish prints, once the crawl has ended, how often the warnings printed came in
// all, and how many were not printed.
func (r *warnReporter) finish() {
	for i, key := range r.order {
		s := r.shapes[key]
		if s.n < 2 || i >= warnLinesMax {
			continue
		}
		about := ""
		if len(s.hosts) > 1 {
			about = " (" + strings.Join(s.hosts, ", ")
			if s.n > len(s.hosts) {
				about += ", …"
			}
			about += ")"
		}
		head := s.first
		if len(head) > 80 {
			head = cutText(head, 80)
			head = head[:strings.LastIndex(head, "…")] + "…"
		}
		fmt.Fprintf(r.w, "%s: %s ×%d%s, like the one above: %q\n", r.who, levelWord(s.level), s.n, about, head)
	}
	if r.hidden > 0 {
		fmt.Fprintf(r.w, "%s: %s not shown here: the store keeps them (crawlconsole stats --db, or the console's Log pane)\n", r.who, plural.Count(r.hidden, "more distinct warning"))
	}
}

func levelWord(l view.Level) string {
	if l >= view.LevelError {
		return "error"
	}
	return "warning"
}

var (
	urlPattern    = regexp.MustCompile(`https?://[^\s,;)"']+`)
	numberPattern = regexp.MustCompile(`[0-9]+`)
)

// warnKey is what makes two warnings the same: their text with the host, URLs and
// numbers taken out.
func warnKey(ev view.Event) string {
	m := ev.Msg
	if ev.Host != "" {
		m = strings.ReplaceAll(m, ev.Host, "HOST")
	}
	m = urlPattern.ReplaceAllString(m, "URL")
	return fmt.Sprint(ev.Level) + numberPattern.ReplaceAllString(m, "N")
}

// cutText cuts s to about max bytes (on a rune boundary), saying how long it was.
func cutText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s…(%d bytes)", s[:cut], len(s))
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// exampleKinds is how many kinds the end-of-crawl report names with examples.
const exampleKinds = 8

// kindReport is the end-of-crawl lines naming the failed and skipped kinds with
// their first URLs, most frequent first: "  failed ssrf_blocked ×3: URL, URL …".
func kindReport(st view.Stats) []string {
	lines, failed, examples := robotsReport(st)
	for _, part := range []struct {
		word  string
		kinds map[string]int64
	}{{"failed", failed}, {"skipped", st.Skipped}} {
		kinds := make([]string, 0, len(part.kinds))
		for k := range part.kinds {
			kinds = append(kinds, k)
		}
		sort.Slice(kinds, func(i, j int) bool {
			a, b := part.kinds[kinds[i]], part.kinds[kinds[j]]
			return a > b || a == b && kinds[i] < kinds[j]
		})
		for i, k := range kinds {
			if i == exampleKinds {
				lines = append(lines, fmt.Sprintf("  %s: %s (see --stats-json or crawlconsole stats)", part.word, plural.Count(len(kinds)-i, "more kind")))
				break
			}
			line := fmt.Sprintf("  %s %s ×%d", part.word, k, part.kinds[k])
			if ex := examples[k]; len(ex) > 0 {
				cut := make([]string, len(ex))
				for i, u := range ex {
					cut[i] = cutText(u, 120)
				}
				line += ": " + strings.Join(cut, ", ")
				if part.kinds[k] > int64(len(ex)) {
					line += " …"
				}
			}
			lines = append(lines, line)
		}
	}
	return lines
}

// robotsReport is the end-of-crawl lines of the URLs set aside because their
// site's robots.txt did not answer: those still waiting, as waiting ("  robots.txt
// wait: 180 URLs on 3 sites not answering …"), not failed, and those that went on
// once it answered; with the errors left to report as failed (robots_unreachable's
// failures only: a refetch whose robots.txt did not answer) and the examples to
// name them by (robots_unreachable's are the URLs set aside first: none for its
// failures).
func robotsReport(st view.Stats) ([]string, map[string]int64, map[string][]string) {
	r := st.RobotsWaiting
	if r == nil || r.Waited == 0 {
		return nil, st.Errors, st.Examples
	}
	var lines []string
	if w := pane.RobotsWait(*r); w != "" {
		line := "  " + w + "; fetched once it answers"
		if ex := st.Examples[fetch.KindRobotsDown]; len(ex) > 0 {
			line += ": " + cutText(ex[0], 120)
			if r.URLs > 1 {
				line += " …"
			}
		}
		lines = append(lines, line)
	}
	if on := r.Waited - r.URLs; on > 0 {
		lines = append(lines, fmt.Sprintf("  robots_unreachable: %d deferred went on once robots.txt answered", on))
	}
	failed := maps.Clone(st.Errors)
	if n := failed[fetch.KindRobotsDown] - r.Waited; n > 0 {
		failed[fetch.KindRobotsDown] = n
	} else {
		delete(failed, fetch.KindRobotsDown)
	}
	examples := maps.Clone(st.Examples)
	delete(examples, fetch.KindRobotsDown)
	return lines, failed, examples
}

// nothingFetched says why a crawl that fetched no page ended that way, with the fix
// when there is one (again: how to start it again on its store), or "" if it fetched something or was given nothing to fail on
// (a finished store resumed, a crawl stopped before its first request).
func nothingFetched(st view.Stats, again string) string {
	if st.PagesFetched > 0 || st.StoreError != "" {
		return ""
	}
	var failed, skipped int64
	for _, n := range st.Errors {
		failed += n
	}
	for _, n := range st.Skipped {
		skipped += n
	}
	if failed+skipped+st.Refused == 0 {
		return ""
	}
	why := fmt.Sprintf("nothing was fetched: errors: %s; skipped: %s", kindList(st.Errors), kindList(st.Skipped))
	if st.Errors["ssrf_blocked"] > 0 {
		why += "; " + allowPrivateFix(st.Examples["ssrf_blocked"])
	}
	if st.Errors["robots_unreachable"] > 0 {
		why += "; robots_unreachable: the site's robots.txt did not answer (the warning above says why): its URLs " +
			"wait, deferred, and are fetched once it answers (asked again after etiquette.robots_retry, 1m by default, " +
			"doubling); " + again + " after that, or without --until-idle to wait for it"
	}
	return why
}

// allowPrivateFix is the --allow-private that lets the SSRF guard through to the
// hosts of urls: the whole loopback range for loopback, the private range (or the
// address) for the others; a name needs the address the warning above gave.
func allowPrivateFix(urls []string) string {
	var ranges []string
	named := false
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil {
			continue
		}
		h := u.Hostname()
		var r string
		if a, err := netip.ParseAddr(h); err == nil {
			r = privateRange(a)
		} else if h == "localhost" || strings.HasSuffix(h, ".localhost") {
			r = "127.0.0.0/8"
		} else {
			named = true
			continue
		}
		if !contains(ranges, r) {
			ranges = append(ranges, r)
		}
	}
	if len(ranges) == 0 {
		return "to crawl them, start with --allow-private CIDR, the range of the address the warning above names"
	}
	fix := "to crawl them, start with --allow-private " + strings.Join(ranges, " --allow-private ")
	if named {
		fix += " (and the ranges the warnings above name)"
	}
	return fix
}

// privateRange is the reserved range a refused address is in, or the address alone.
func privateRange(a netip.Addr) string {
	a = a.Unmap()
	for _, p := range []string{"127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10", "fc00::/7", "fe80::/10"} {
		if netip.MustParsePrefix(p).Contains(a) {
			return p
		}
	}
	return netip.PrefixFrom(a, a.BitLen()).String()
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
