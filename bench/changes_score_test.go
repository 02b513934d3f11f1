package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// corpusDir is the article extraction benchmark for tests: $CRAWLCONSOLE_CORPUS, else
// the project workspace's copy beside the repository.
func corpusDir(t *testing.T) string {
	dir := os.Getenv("CRAWLCONSOLE_CORPUS")
	if dir == "" {
		dir = filepath.Join("..", defaultCorpus)
	}
	if _, err := os.Stat(filepath.Join(dir, "evaluate.py")); err != nil {
		t.Skipf("no article extraction benchmark at %s: clone github.com/scrapinghub/article-extraction-benchmark and set CRAWLCONSOLE_CORPUS", dir)
	}
	return dir
}

// The Go scorer agrees with the benchmark's own evaluate.py, run by python3, on
// English, Chinese, Japanese, Russian and degenerate texts (empty, shorter than a
// shingle, repeated shingles).
func TestShingleScoreMatchesPython(t *testing.T) {
	dir := corpusDir(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed: the cross-check against evaluate.py needs it")
	}
	pairs := [][2]string{
		{"The quick brown fox jumps over the lazy dog. The dog sleeps.", "The quick brown fox jumps over the lazy cat. Menu Home News"},
		{"台风来袭，沿海地区发布预警。居民请注意安全，远离海边。", "台风来袭，沿海地区发布预警。广告 点击这里"},
		{"東京で大雨が降りました。交通機関に影響が出ています。", "東京で大雨が降りました。"},
		{"Москва, 5 ноября. Правительство объявило о новых мерах поддержки.", "Правительство объявило о новых мерах поддержки. Подписаться"},
		{"", "something extra here now"},
		{"short one", "short one"},
		{"a b c d a b c d a b c d", "a b c d"},
		{"naïve café — résumé_2019 x²", "naïve café résumé_2019"},
	}
	js, _ := json.Marshal(pairs)
	script := `import json,sys
sys.path.insert(0, sys.argv[1])
from evaluate import string_shingle_matching
print(json.dumps([string_shingle_matching(t, p) for t, p in json.loads(sys.stdin.read())]))`
	cmd := exec.Command("python3", "-c", script, dir)
	cmd.Stdin = strings.NewReader(string(js))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("evaluate.py: %v", err)
	}
	var want [][3]float64
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("evaluate.py output %q: %v", out, err)
	}
	for i, p := range pairs {
		got := scorePage(p[0], p[1])
		if math.Abs(got.tp-want[i][0]) > 1e-9 || math.Abs(got.fp-want[i][1]) > 1e-9 || math.Abs(got.fn-want[i][2]) > 1e-9 {
			t.Errorf("pair %d: Go tp/fp/fn %.4f/%.4f/%.4f, evaluate.py %.4f/%.4f/%.4f", i, got.tp, got.fp, got.fn, want[i][0], want[i][1], want[i][2])
		}
	}
}

// The corpus-level means follow evaluate.py's metrics_from_tp_fp_fns: pages with
// nothing predicted are left out of precision, pages with no truth out of recall.
func TestCorpusScoreMeans(t *testing.T) {
	pages := []pageScore{{tp: 1}, {tp: 0.5, fp: 0.5}, {fn: 1}}
	f1, p, r := corpusScore(pages)
	// precision over pages 1-2: (1 + 0.5)/2; recall over pages 1-3: (1 + 1 + 0)/3.
	if math.Abs(p-0.75) > 1e-9 || math.Abs(r-2.0/3) > 1e-9 || math.Abs(f1-2*0.75*(2.0/3)/(0.75+2.0/3)) > 1e-9 {
		t.Errorf("F1 %.3f P %.3f R %.3f, want 0.706 0.75 0.667", f1, p, r)
	}
}
