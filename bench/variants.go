package main

// go run ./bench variants [--hosts N] [--seed S]: duplicate fetches of URL variants.
// The sandbox web with URLVariants on links every article and post in four forms
// (tracking parameters and session ids: utm_*, fbclid, gclid, ;jsessionid=,
// PHPSESSID, sid), all serving one page. The same web is crawled by crawlconsole
// (url_variants on, the default) and by the crawler before (url_variants.keep), each
// on a fresh sandbox; the sandbox's request log says how many requests fetched a page
// already fetched (sandbox.StripVariants names each request's page).
//
// duplicate_fetch_share: requests for a page already fetched, over the pages fetched
// (goal <= 0.01; the baseline's against it).

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

func init() { register("variants", runVariants) }

func runVariants(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("variants", flag.ContinueOnError)
	hosts := fs.Int("hosts", 16, "sandbox hosts")
	seed := fs.Int64("seed", 1, "sandbox seed")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	fmt.Printf("variants: sandbox of %d hosts (seed %d), every article and post linked in 4 forms (tracking parameters, session ids)\n\n", *hosts, *seed)
	fmt.Printf("%-14s %8s %8s %10s %22s %9s\n", "crawler", "requests", "pages", "duplicates", "duplicate_fetch_share", "time")
	out := map[string]any{"hosts": *hosts, "seed": *seed}
	var ours, base float64
	for _, c := range []struct {
		name string
		keep bool
	}{{"crawlconsole", false}, {"keep_variants", true}} {
		r, err := variantsCrawl(*hosts, *seed, c.keep)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", c.name, err)
		}
		share := float64(r.dups) / float64(max(r.pages, 1))
		fmt.Printf("%-14s %8d %8d %10d %22.4f %9s\n", c.name, r.requests, r.pages, r.dups, share, r.took.Round(100*time.Millisecond))
		prefix := ""
		if c.keep {
			prefix, base = "baseline_", share
		} else {
			ours = share
		}
		out[prefix+"duplicate_fetch_share"] = round3(share)
		out[prefix+"pages"] = r.pages
		out[prefix+"requests"] = r.requests
	}
	verdict := "met"
	if ours > 0.01 {
		verdict = "NOT met"
	}
	fmt.Printf("\ngoal: duplicate_fetch_share %.4f (<= 0.01: %s); the crawler before: %.3f\n", ours, verdict, base)
	return out, nil
}

// variantsResult is one crawl's account from the sandbox's request log.
type variantsResult struct {
	requests, pages, dups int
	took                  time.Duration
}

// variantsCrawl crawls a fresh variants sandbox to its end and counts the requests
// answered 200 and the distinct pages they fetched.
func variantsCrawl(hosts int, seed int64, keep bool) (variantsResult, error) {
	cfg := enginetest.SandboxConfig(seed, hosts)
	cfg.Layout.URLVariants = true
	sb, err := sandbox.Start(cfg)
	if err != nil {
		return variantsResult{}, err
	}
	defer sb.Close()
	dir, err := os.MkdirTemp("", "variants")
	if err != nil {
		return variantsResult{}, err
	}
	defer os.RemoveAll(dir)
	o := enginetest.PoliteOptions(sb, filepath.Join(dir, "crawl.db"))
	o.URLVariants.Keep = keep
	start := time.Now()
	if err := enginetest.Crawl(o); err != nil {
		return variantsResult{}, err
	}
	r := variantsResult{took: time.Since(start)}
	seen := map[string]bool{}
	for _, q := range sb.Truth().Requests() {
		if q.Status != 200 {
			continue
		}
		r.requests++
		page := sandbox.StripVariants(q.URL)
		if seen[page] {
			r.dups++
			continue
		}
		seen[page] = true
	}
	r.pages = len(seen)
	return r, nil
}
