package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

func init() { register("changes", runChanges) }

// defaultCorpus is where the project workspace keeps the benchmark, relative to the
// repository root.
const defaultCorpus = "../shared/corpus/article-extraction-benchmark"

func runChanges(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("changes", flag.ContinueOnError)
	corpus := fs.String("corpus", defaultCorpus, "the article extraction benchmark (ground-truth.json, html/)")
	only := fs.String("only", "", "score only this extractor")
	dump := fs.String("dump", "", "write each extractor's output as the benchmark's output/NAME.json under this directory")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(*corpus, "ground-truth.json")); err != nil {
		fmt.Fprintf(os.Stderr, "changes: no corpus at %s (get github.com/scrapinghub/article-extraction-benchmark and pass --corpus DIR); skipped\n", *corpus)
		return map[string]any{"skipped": "no corpus at " + *corpus}, nil
	}
	pages, err := loadCorpus(*corpus)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for _, ex := range extractors() {
		if *only != "" && ex.name != *only {
			continue
		}
		var scores []pageScore
		texts := map[string]string{}
		t0 := time.Now()
		for _, p := range pages {
			txt := ex.text(p.HTML)
			texts[p.ID] = txt
			scores = append(scores, scorePage(p.Truth, txt))
		}
		el := time.Since(t0)
		f1, pr, rc := corpusScore(scores)
		fmt.Printf("%-22s F1 %.3f  P %.3f  R %.3f  %6.0f µs/page\n", ex.name, f1, pr, rc, float64(el.Microseconds())/float64(len(pages)))
		if *dump != "" {
			if err := dumpOutput(*dump, ex.name, pages, texts); err != nil {
				return nil, err
			}
		}
		out[ex.name] = f1
	}
	return out, nil
}
