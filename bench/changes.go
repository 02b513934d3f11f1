package main

// go run ./bench changes [--corpus DIR]: how well the extractor and
// the change detector do. On the article extraction
// benchmark's real pages (github.com/scrapinghub/article-extraction-benchmark, 181
// pages with reference article bodies, MIT; the project keeps a copy in
// ../shared/corpus/article-extraction-benchmark):
//
//  1. extraction quality with the benchmark's own metric (changes_score.go) for
//     crawlconsole's extractor, the seed's, go-trafilatura and readeck/go-readability,
//     with CPU and allocation per page;
//  2. change detection: each page rendered with boilerplate churn (two variants,
//     must not count) and with real edits (must count), judged by crawlconsole's
//     tracker (page.Sign + Tracker.Observe) and by the baselines: the seed's
//     SimHash rule, a whole-page SimHash, an MD5 of the body, and each library's
//     main text digested.

import (
	"crypto/md5"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/cespare/xxhash/v2"
	"github.com/mfonda/simhash"
	"golang.org/x/net/html"

	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
)

func init() { register("changes", runChanges) }

// detector judges whether two fetches of a page differ in content.
type detector struct {
	name    string
	changed func(a, b []byte) bool
}

func runChanges(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("changes", flag.ContinueOnError)
	corpus := fs.String("corpus", defaultCorpus, "the article extraction benchmark (ground-truth.json, html/)")
	dump := fs.String("dump", "", "also write each extractor's output as the benchmark's output/NAME.json under this directory (for evaluate.py)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	dir, ok, looked := findTestSet(*corpus, "ground-truth.json")
	if !ok {
		fmt.Fprintln(os.Stderr, corpusMissing("changes", looked))
		return map[string]any{"skipped": "no corpus at " + strings.Join(looked, " or ")}, nil
	}
	*corpus = dir
	pages, err := loadCorpus(*corpus)
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread() // thread CPU time below is this goroutine's
	defer runtime.UnlockOSThread()

	fmt.Printf("changes: %d pages of the article extraction benchmark (%s)\n\n", len(pages), *corpus)
	fmt.Printf("%-20s %6s %6s %6s %9s %9s  %-11s %s\n", "extractor", "F1", "P", "R", "CPU µs", "KB alloc", "licence", "dependencies")
	quality := map[string]map[string]any{}
	for _, ex := range extractors() {
		var scores []pageScore
		texts := map[string]string{}
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		cpu0 := threadCPU()
		for _, p := range pages {
			texts[p.ID] = ex.text(p.HTML)
		}
		cpu := threadCPU() - cpu0
		runtime.ReadMemStats(&ms1)
		for _, p := range pages {
			scores = append(scores, scorePage(p.Truth, texts[p.ID]))
		}
		f1, pr, rc := corpusScore(scores)
		us := float64(cpu.Microseconds()) / float64(len(pages))
		kb := float64(ms1.TotalAlloc-ms0.TotalAlloc) / 1024 / float64(len(pages))
		fmt.Printf("%-20s %6.3f %6.3f %6.3f %9.0f %9.0f  %-11s %s\n", ex.name, f1, pr, rc, us, kb, ex.licence, ex.deps)
		quality[ex.name] = map[string]any{"extract_f1": round3(f1), "extract_precision": round3(pr),
			"extract_recall": round3(rc), "extract_cpu_us_per_page": round3(us), "alloc_kb_per_page": round3(kb)}
		if *dump != "" {
			if err := dumpOutput(*dump, ex.name, pages, texts); err != nil {
				return nil, err
			}
		}
	}

	// The fingerprint paths' CPU: today's (seed extractor + SimHash) vs ours
	// (extractor + SimHash + digests), same pages, interleaved passes.
	var cpuToday, cpuOurs time.Duration
	for pass := range 3 {
		for _, p := range pages {
			t0 := threadCPU()
			seedFingerprint(p.HTML, corpusContentType)
			t1 := threadCPU()
			page.Sign(append(p.HTML, byte('0'+pass)), corpusContentType) // a new body: no cache hit
			t2 := threadCPU()
			cpuToday += t1 - t0
			cpuOurs += t2 - t1
		}
	}
	n := float64(3 * len(pages))
	usToday, usOurs := float64(cpuToday.Microseconds())/n, float64(cpuOurs.Microseconds())/n
	fmt.Printf("\nfingerprint path CPU per page: today %.0f µs, crawlconsole %.0f µs (%.2f×, goal ≤ 2×)\n\n", usToday, usOurs, usOurs/usToday)

	det := detectors()
	res, counts := detectChanges(pages, det)
	fmt.Printf("%-20s %8s %8s %8s %8s %8s   (pairs: %d churn, edits %v)\n", "detector", "false", "repl_par", "append", "headline", "tiny", counts["churn"], editCounts(counts))
	out := map[string]any{}
	baselines := map[string]any{}
	for _, d := range det {
		r := res[d.name]
		fmt.Printf("%-20s %8.3f %8.3f %8.3f %8.3f %8.3f\n", d.name, r["false_change_rate"], r["replace_par"], r["append"], r["headline"], r["tiny"])
		fig := map[string]any{"false_change_rate": round3(r["false_change_rate"]), "detect_rate": map[string]any{
			"replace_par": round3(r["replace_par"]), "append": round3(r["append"]), "headline": round3(r["headline"]), "tiny": round3(r["tiny"])}}
		if q, ok := quality[libName(d.name)]; ok {
			for k, v := range q {
				fig[k] = v
			}
		}
		switch d.name {
		case "crawlconsole":
			for k, v := range fig {
				out[k] = v
			}
		case "crawlconsole_small_edits_ignore":
			out["detect_rate_small_edits_ignore"] = fig["detect_rate"]
			out["false_change_rate_small_edits_ignore"] = fig["false_change_rate"]
		default:
			baselines[d.name] = fig
		}
	}
	if t, ok := baselines["today"].(map[string]any); ok {
		t["cpu_us_per_page"] = round3(usToday)
	}
	out["cpu_us_per_page"] = round3(usOurs)
	out["cpu_ratio_vs_today"] = round3(usOurs / usToday)
	out["extract_f1"] = quality["crawlconsole"]["extract_f1"]
	out["extract_precision"] = quality["crawlconsole"]["extract_precision"]
	out["extract_recall"] = quality["crawlconsole"]["extract_recall"]
	delete(out, "extract_cpu_us_per_page")
	out["small_edits_policy"] = revisit.SmallEditsCount
	out["pages"] = len(pages)
	out["baselines"] = baselines
	out["goals"] = map[string]any{"extract_f1": ">=0.96", "false_change_rate": "<=0.02",
		"detect_rate": ">=0.95 replace_par, append, headline", "cpu_ratio_vs_today": "<=2"}
	return out, nil
}

// libName maps a detector to the extractor whose quality figures it carries.
func libName(detector string) string {
	switch detector {
	case "crawlconsole", "today", "go_trafilatura", "readeck_readability":
		return detector
	}
	return ""
}

// detectors lists crawlconsole's tracker and the baselines.
func detectors() []detector {
	return []detector{
		{"crawlconsole", trackerJudge(revisit.SmallEditsCount)},
		{"crawlconsole_small_edits_ignore", trackerJudge(revisit.SmallEditsIgnore)},
		{"today", func(a, b []byte) bool {
			ha, oka := seedFingerprint(a, corpusContentType)
			hb, okb := seedFingerprint(b, corpusContentType)
			return oka && okb && page.Distance(ha, hb) > revisit.DefaultThreshold
		}},
		{"whole_page_simhash", func(a, b []byte) bool {
			return page.Distance(wholePageSimhash(a), wholePageSimhash(b)) > revisit.DefaultThreshold
		}},
		{"md5", func(a, b []byte) bool { return md5.Sum(a) != md5.Sum(b) }},
		{"go_trafilatura", digestJudge(trafilaturaText)},
		{"readeck_readability", digestJudge(readabilityText)},
	}
}

// trackerJudge runs crawlconsole's own decision: Sign both bodies and let a tracker
// observe them one after the other.
func trackerJudge(smallEdits string) func(a, b []byte) bool {
	tr, err := revisit.NewTracker(revisit.Config{SmallEdits: smallEdits}, nil)
	if err != nil {
		panic(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return func(a, b []byte) bool {
		p := &revisit.Page{URL: "https://example.com/a"}
		for i, body := range [][]byte{a, b} {
			sig, _, ok := page.Sign(body, corpusContentType)
			v := tr.Observe(p, t0.Add(time.Duration(i)*time.Hour), revisit.Outcome{Hash: sig.SimHash, OK: ok, Sig: sig, HasDigest: ok})
			if i == 1 {
				return v == revisit.VerdictChanged
			}
		}
		return false
	}
}

// digestJudge treats a library's main text like crawlconsole's digest: changed when
// the text, with digits dropped and white space folded, differs.
func digestJudge(text func([]byte) string) func(a, b []byte) bool {
	return func(a, b []byte) bool { return maskedTextDigest(text(a)) != maskedTextDigest(text(b)) }
}

func maskedTextDigest(s string) uint64 {
	s = strings.Map(func(r rune) rune {
		if unicode.IsDigit(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
	return xxhash.Sum64String(strings.Join(strings.Fields(s), " "))
}

// wholePageSimhash is the SimHash of all of a page's visible text with the named
// library's own word features (what a crawler without an extractor would do).
func wholePageSimhash(body []byte) uint64 {
	var sb strings.Builder
	z := html.NewTokenizer(strings.NewReader(string(body)))
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return simhash.Simhash(simhash.NewWordFeatureSet([]byte(strings.ToLower(sb.String()))))
		case html.StartTagToken:
			if n, _ := z.TagName(); string(n) == "script" || string(n) == "style" {
				skip++
			}
		case html.EndTagToken:
			if n, _ := z.TagName(); (string(n) == "script" || string(n) == "style") && skip > 0 {
				skip--
			}
		case html.TextToken:
			if skip == 0 {
				sb.Write(z.Text())
				sb.WriteByte(' ')
			}
		}
	}
}

// detectChanges renders every page's churn and edit pairs and asks each detector.
// It returns per detector the false change rate over churn pairs and the detection
// rate per edit kind, and the number of pairs.
func detectChanges(pages []corpusPage, det []detector) (map[string]map[string]float64, map[string]int) {
	r := rand.New(rand.NewPCG(19, 19))
	hits := map[string]map[string]int{}
	for _, d := range det {
		hits[d.name] = map[string]int{}
	}
	counts := map[string]int{}
	// Paragraphs of other articles: the new text of an edit.
	var pool []string
	for _, p := range pages {
		for _, para := range strings.Split(p.Truth, "\n") {
			if len(strings.Fields(para)) >= 25 {
				pool = append(pool, para)
			}
		}
	}
	for i, p := range pages {
		others := []string{pool[(i*7+3)%len(pool)], pool[(i*13+5)%len(pool)]}
		for _, kind := range churnKinds {
			a, err1 := parsePage(p.HTML, p.Truth)
			b, err2 := parsePage(p.HTML, p.Truth)
			if err1 != nil || err2 != nil {
				continue
			}
			churn(a, kind, 0, r)
			churn(b, kind, 1, r)
			ab, bb := a.render(), b.render()
			counts["churn"]++
			for _, d := range det {
				if d.changed(ab, bb) {
					hits[d.name]["churn"]++
				}
			}
		}
		for _, kind := range editKinds {
			a, err1 := parsePage(p.HTML, p.Truth)
			b, err2 := parsePage(p.HTML, p.Truth)
			if err1 != nil || err2 != nil || !edit(b, kind, others, r) {
				continue
			}
			ab, bb := a.render(), b.render()
			counts[kind]++
			for _, d := range det {
				if d.changed(ab, bb) {
					hits[d.name][kind]++
				}
			}
		}
	}
	out := map[string]map[string]float64{}
	for _, d := range det {
		m := map[string]float64{"false_change_rate": ratio(hits[d.name]["churn"], counts["churn"])}
		for _, k := range editKinds {
			m[k] = ratio(hits[d.name][k], counts[k])
		}
		out[d.name] = m
	}
	return out, counts
}

func editCounts(c map[string]int) string {
	var parts []string
	for _, k := range editKinds {
		parts = append(parts, fmt.Sprintf("%s %d", k, c[k]))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// threadCPU is the CPU time of the calling OS thread (the bench locks itself to one).
func threadCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(1, &ru) // RUSAGE_THREAD
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
