package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The third-party test sets some benchmarks read are not in the repository (their
// licences and size): the project workspace keeps copies in shared/corpus beside the
// main checkout, which these defaults name. A relative default is looked for from
// the current directory, then beside the repository's root and beside its main
// checkout (a worktree's root is elsewhere), so `go run ./bench NAME` finds it from
// the repository root, a worktree or bench/.
const (
	defaultCorpus    = "../shared/corpus/article-extraction-benchmark"
	defaultHTMLDate  = "../shared/corpus/htmldate"
	defaultPostlight = "../shared/corpus/postlight-parser"
)

// corpusSource is where the article extraction benchmark comes from, for the
// message when it is absent.
const corpusSource = "`git clone https://github.com/scrapinghub/article-extraction-benchmark` (181 articles with their ground truth, MIT)"

// findTestSet is dir if it holds marker, else, for a relative dir, the first of
// the places above that does; ok false and the places looked in when none does.
func findTestSet(dir, marker string) (found string, ok bool, looked []string) {
	candidates := []string{dir}
	if !filepath.IsAbs(dir) {
		for _, root := range repoRoots() {
			candidates = append(candidates, filepath.Join(root, dir))
		}
	}
	seen := map[string]bool{}
	for _, c := range candidates {
		abs, err := filepath.Abs(c)
		if err != nil || seen[abs] {
			continue
		}
		seen[abs] = true
		if _, err := os.Stat(filepath.Join(abs, marker)); err == nil {
			return abs, true, nil
		}
		looked = append(looked, abs)
	}
	return dir, false, looked
}

// repoRoots are the repository's root (go.mod's directory above the current one)
// and, from a worktree, its main checkout's root.
func repoRoots() []string {
	var roots []string
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				roots = append(roots, d)
				break
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	if out, err := exec.Command("git", "rev-parse", "--path-format=absolute", "--git-common-dir").Output(); err == nil {
		if common := strings.TrimSpace(string(out)); filepath.Base(common) == ".git" {
			roots = append(roots, filepath.Dir(common))
		}
	}
	return roots
}

// corpusMissing is the message of a benchmark that found no article extraction
// benchmark: where it looked and where the corpus comes from.
func corpusMissing(bench string, looked []string) string {
	return bench + ": no corpus at " + strings.Join(looked, " or ") + ": get it with " + corpusSource +
		" and pass --corpus DIR (the project keeps a copy in " + defaultCorpus + ", beside the repository); skipped"
}
