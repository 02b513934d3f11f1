package discover

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// corpusDirs are the real-world corpus and the held-out sets: documents gathered
// after the parser's fixes, to tell how a feed nobody tuned for fares.
var corpusDirs = []string{"testdata/realworld", "testdata/heldout", "testdata/heldout2", "testdata/heldout3"}

// corpusDoc is one row of the real-world corpus's MANIFEST.tsv.
type corpusDoc struct {
	file, kind, encoding, url, contentType string
}

func readManifest(t *testing.T, corpusDir string) []corpusDoc {
	t.Helper()
	f, err := os.Open(filepath.Join(corpusDir, "MANIFEST.tsv"))
	if os.IsNotExist(err) {
		t.Skip("no real-world corpus in", corpusDir)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusDoc
	sc := bufio.NewScanner(f)
	for first := true; sc.Scan(); first = false {
		c := strings.Split(sc.Text(), "\t")
		if first || len(c) < 5 {
			continue
		}
		out = append(out, corpusDoc{file: c[0], kind: c[1], encoding: c[2], url: c[3], contentType: c[4]})
	}
	return out
}

// readLines reads an expected/ list; ok is false when there is none.
func readLines(path string) (lines []string, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines, true
}

// TestRealWorldCorpus parses every document of the real-world corpus (feeds and
// sitemaps captured from real sites, served with the Content-Type the manifest
// gives) and checks that it finds the page URLs an independent parser found in it
// (python3-feedparser for feeds, xml.etree for sitemaps): at least 99% of them in
// every document. The share found per kind is logged (go test -v -run Corpus).
// The held-out set is checked the same way.
func TestRealWorldCorpus(t *testing.T) {
	for _, dir := range corpusDirs {
		t.Run(filepath.Base(dir), func(t *testing.T) { checkCorpus(t, dir) })
	}
}

func checkCorpus(t *testing.T, corpusDir string) {
	docs := readManifest(t, corpusDir)
	type tally struct{ docs, want, found, short int }
	byKind := map[string]*tally{}
	for _, d := range docs {
		want, ok := readLines(filepath.Join(corpusDir, "expected", d.file+".urls"))
		if !ok {
			if want, ok = readLines(filepath.Join(corpusDir, "expected", d.file+".children")); !ok {
				t.Errorf("%s: no expected list", d.file)
				continue
			}
		}
		body, err := os.ReadFile(filepath.Join(corpusDir, d.file))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := ParseFrom(body, Source{URL: d.url, ContentType: d.contentType}, Limits{})
		got := map[string]bool{}
		for _, u := range urlsOf(doc) {
			got[u] = true
		}
		found := 0
		var missing []string
		for _, u := range want {
			if got[u] {
				found++
			} else {
				missing = append(missing, u)
			}
		}
		k := byKind[d.kind]
		if k == nil {
			k = &tally{}
			byKind[d.kind] = k
		}
		k.docs++
		k.want += len(want)
		k.found += found
		if len(want) > 0 && float64(found) < 0.99*float64(len(want)) {
			k.short++
			t.Errorf("%s (%s, %s, served as %q): found %d of %d expected URLs (err %v, warnings %v); first missing %q, first found %q",
				d.file, d.kind, d.encoding, d.contentType, found, len(want), err, doc.Warnings, first(missing), first(urlsOf(doc)))
		}
	}
	kinds := make([]string, 0, len(byKind))
	for k := range byKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	all := tally{}
	for _, k := range kinds {
		v := byKind[k]
		all.docs, all.want, all.found, all.short = all.docs+v.docs, all.want+v.want, all.found+v.found, all.short+v.short
		t.Logf("%-16s %4d documents  %6d/%6d expected URLs found (%.4f)  %d documents under 0.99", k, v.docs, v.found, v.want, share(v.found, v.want), v.short)
	}
	t.Logf("%-16s %4d documents  %6d/%6d expected URLs found (%.4f)  %d documents under 0.99", "all", all.docs, all.found, all.want, share(all.found, all.want), all.short)
}

func share(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
