package main

// Benchmark "realfeeds": does a crawl store every article that real feeds and
// sitemaps list?
//
//	go run ./bench realfeeds [-corpus DIR] [-part] [-trace] [-lanes 8] [-limit 5m]
//
// The real-world corpus (-corpus, default engine/discover/testdata/realworld: feeds
// and sitemaps captured from real sites, MANIFEST.tsv, and expected/, what an
// independent parser reads from each) is served on loopback by sandbox.RealWeb, each
// document at its published URL with only the scheme and authority rewritten, with
// the Content-Type its manifest gives; each host has a home page that links its feeds
// (<link rel="alternate">) and a robots.txt that names its sitemaps. The engine, with
// its defaults (discovery on) and pauses of a few ms, crawls from the home pages only
// until it runs dry. Then the store is read:
//
//   - listed, stored, found_share per kind, per encoding and per Content-Type: the
//     URLs each document lists (a URL listed by two documents counts twice), how many
//     the crawl stored; off_site: listed URLs on another site than their document's
//     (a feed's items elsewhere: feedproxy redirects, podcast hosts, aggregators);
//   - documents_lost: documents that list something yet gave the crawl nothing, each
//     with the engine's reason (its fetch's end state, its log lines, or that it was
//     stored as a page and never read as a feed or sitemap);
//   - peak_rss_mb: this process's peak resident set (server, engine and store),
//     beside start_rss_mb, the binary's own before the crawl.
//
// -trace explains every listed URL not stored. -part crawls one document of each
// kind, encoding and Content-Type only (what the test crawls).

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"time"

	"github.com/crawlconsole/crawlconsole/sandbox"
)

func init() { register("realfeeds", runRealFeeds) }

// realCorpusDefault is the corpus in the repository, from the module root.
var realCorpusDefault = filepath.Join("engine", "discover", "testdata", "realworld")

// Goals: at least 99% of the listed URLs stored, no document that gave the crawl
// nothing.
const (
	realGoalFound = 0.99
	realGoalLost  = 0
)

func runRealFeeds(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("realfeeds", flag.ContinueOnError)
	dir := fs.String("corpus", realCorpusDefault, "the real-world corpus directory (MANIFEST.tsv, feeds/, sitemaps/, expected/)")
	part := fs.Bool("part", false, "crawl one document of each kind, encoding and Content-Type only")
	trace := fs.Bool("trace", false, "explain every listed URL that was not stored")
	lanes := fs.Int("lanes", 8, "lanes.max of the crawl")
	limit := fs.Duration("limit", 5*time.Minute, "stop the crawl after this long if it has not run dry")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if *lanes < 1 || *limit <= 0 {
		return nil, errors.New("-lanes and -limit must be positive")
	}
	startRSS := peakRSSMB() // the binary's own, before any crawl
	docs, err := sandbox.LoadRealCorpus(*dir)
	if err != nil {
		return nil, err
	}
	if *part {
		docs = realPart(docs)
	}
	feeds := 0
	for _, d := range docs {
		if d.IsFeed() {
			feeds++
		}
	}
	r, err := realCrawl(*dir, docs, *lanes, *limit)
	if err != nil {
		return nil, err
	}
	fmt.Printf("realfeeds: %d documents (%d feeds, %d sitemaps) from %s on %d hosts; seeds: their home pages only; lanes %d\n",
		len(docs), feeds, len(docs)-feeds, *dir, r.hosts, *lanes)
	fmt.Printf("  GOMAXPROCS %d, %s, load average %s\n", runtime.GOMAXPROCS(0), runtime.Version(), loadAvg(3))
	idle := "ran dry"
	if !r.idle {
		idle = "stopped at -limit, not dry"
	}
	fmt.Printf("  crawl %s in %.1f s: %d pages fetched, %d requests served\n\n", idle, r.elapsed.Seconds(), r.fetched, r.requests)
	realTable(r, "kind", func(d realDoc) string { return d.doc.Kind })
	realTable(r, "encoding", func(d realDoc) string { return d.doc.Encoding })
	realTable(r, "content_type", func(d realDoc) string { return d.doc.ContentType })

	lost := r.lost()
	fmt.Printf("documents lost: %d\n", len(lost))
	for _, d := range lost {
		fmt.Printf("  %s  %s %s %q  %s\n    why: %s\n", d.doc.File, d.doc.Kind, d.doc.Encoding, d.doc.ContentType, d.url, d.why)
	}
	if *trace {
		fmt.Println("\ndocuments of which the engine's parser, on the document as served, misses listed URLs:")
		for _, d := range r.docs {
			if d.parsed < len(d.listed) {
				fmt.Printf("  %s  %s %s %q: %d of %d read\n", d.doc.File, d.doc.Kind, d.doc.Encoding, d.doc.ContentType, d.parsed, len(d.listed))
			}
		}
		fmt.Println("\nlisted URLs not stored (url, document, kind, encoding, content_type, why):")
		for _, d := range r.docs {
			for _, m := range d.misses {
				fmt.Printf("  %s\t%s\t%s\t%s\t%q\t%s\n", m.url, d.doc.File, d.doc.Kind, d.doc.Encoding, d.doc.ContentType, m.why)
			}
		}
	}
	listed, stored := r.totals()
	fmt.Println()
	fmt.Printf("found_share    = %.4f  (%d of %d listed URLs stored; goal ≥ %.2f)\n", r.foundShare(), stored, listed, realGoalFound)
	fmt.Printf("  same site    = %.4f  (of the listed URLs on their document's own site; %d are on another site)\n", r.sameSite(), realOffSite(r))
	fmt.Printf("  parser       = %.4f  (of the listed URLs, those the engine's parser reads from the documents as served: ParseFrom with URL and Content-Type)\n", r.parserShare())
	fmt.Printf("documents_lost = %d       (of %d; goal %d)\n", len(lost), len(r.docs), realGoalLost)
	fmt.Printf("peak_rss_mb    = %.1f   (%.1f when the bench started, before the crawl: the binary and its packages' own)\n", r.peakRSSMB, startRSS)
	return map[string]any{
		"found_share":    crawlRound(r.foundShare(), 4),
		"documents_lost": len(lost),
		"peak_rss_mb":    crawlRound(r.peakRSSMB, 1),
		"start_rss_mb":   crawlRound(startRSS, 1),
		// found_share over the listed URLs on their document's own site
		"found_share_same_site": crawlRound(r.sameSite(), 4),
		// the share the engine's parser reads from the documents as served
		"parser_share": crawlRound(r.parserShare(), 4),
	}, nil
}

// realTable prints listed, stored and found_share per value of by.
func realTable(r realResult, name string, by func(realDoc) string) {
	type row struct{ docs, listed, stored, offSite, lost int }
	rows := map[string]*row{}
	for _, d := range r.docs {
		k := by(d)
		if rows[k] == nil {
			rows[k] = &row{}
		}
		x := rows[k]
		x.docs++
		x.listed += len(d.listed)
		x.stored += d.stored
		x.offSite += d.offSite
		if d.lost {
			x.lost++
		}
	}
	keys := make([]string, 0, len(rows))
	for k := range rows {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	width := len(name)
	for _, k := range keys {
		width = max(width, len(k))
	}
	fmt.Printf("%-*s %5s %7s %7s %11s %5s %8s\n", width, "by "+name, "docs", "listed", "stored", "found_share", "lost", "off_site")
	var all row
	for _, k := range keys {
		x := rows[k]
		fmt.Printf("%-*s %5d %7d %7d %11s %5d %8d\n", width, k, x.docs, x.listed, x.stored, realShare(x.stored, x.listed), x.lost, x.offSite)
		all.docs, all.listed, all.stored, all.offSite, all.lost = all.docs+x.docs, all.listed+x.listed, all.stored+x.stored, all.offSite+x.offSite, all.lost+x.lost
	}
	fmt.Printf("%-*s %5d %7d %7d %11s %5d %8d\n\n", width, "all", all.docs, all.listed, all.stored, realShare(all.stored, all.listed), all.lost, all.offSite)
}

// realOffSite counts the listed URLs on another site than their document's.
func realOffSite(r realResult) int {
	n := 0
	for _, d := range r.docs {
		n += d.offSite
	}
	return n
}

func realShare(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.4f", float64(n)/float64(of))
}

// realCorpusMissing says whether err is the corpus directory's absence.
func realCorpusMissing(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "MANIFEST.tsv"))
	return errors.Is(err, os.ErrNotExist)
}
