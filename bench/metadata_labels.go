package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	nurl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	trafilatura "github.com/markusmobius/go-trafilatura"

	"github.com/crawlconsole/crawlconsole/engine/page"
)

// Headline and author precision and recall against labels: the expected titles
// and authors of trafilatura's real-world metadata tests, as go-trafilatura
// v1.12.2 ports them (metadata-realworld_test.go; Apache-2.0), on the pages its
// module ships (test-files/mock). bench/testdata/trafilatura-metadata has the
// labels and says how they were taken.

//go:embed testdata/trafilatura-metadata/labels.json
var trafilaturaLabelsJSON []byte

// benchmarkHeadlinesJSON are hand-written headline labels for the article
// extraction benchmark's 181 pages (bench/testdata/headlines: how they were made).
//
//go:embed testdata/headlines/extraction-benchmark.json
var benchmarkHeadlinesJSON []byte

// benchmarkBylinesJSON are hand-written byline labels for 153 of the article
// extraction benchmark's 181 pages (bench/testdata/bylines: how they were made).
//
//go:embed testdata/bylines/extraction-benchmark.json
var benchmarkBylinesJSON []byte

// benchmarkBylines maps a labelled benchmark page's id to the names its byline
// shows (empty: the page shows none).
func benchmarkBylines() (map[string][]string, error) {
	var list []struct {
		ID      string   `json:"id"`
		Authors []string `json:"authors"`
	}
	if err := json.Unmarshal(benchmarkBylinesJSON, &list); err != nil {
		return nil, fmt.Errorf("benchmark byline labels: %v", err)
	}
	m := make(map[string][]string, len(list))
	for _, l := range list {
		m[l.ID] = append([]string{}, l.Authors...)
	}
	return m, nil
}

// benchmarkHeadlines maps a benchmark page's id to its labelled headline.
func benchmarkHeadlines() (map[string]string, error) {
	var list []struct {
		ID       string `json:"id"`
		Headline string `json:"headline"`
	}
	if err := json.Unmarshal(benchmarkHeadlinesJSON, &list); err != nil {
		return nil, fmt.Errorf("benchmark headline labels: %v", err)
	}
	m := make(map[string]string, len(list))
	for _, l := range list {
		m[l.ID] = l.Headline
	}
	return m, nil
}

// fieldLabel is one labelled page: its headline ("" when not labelled) and its
// authors (nil when not labelled; empty when the page names none).
type fieldLabel struct {
	URL      string   `json:"url"`
	File     string   `json:"file"`
	Headline string   `json:"headline"`
	Authors  []string `json:"authors"`
}

// fieldScore counts one extractor's answers against the labels: headlines by page,
// authors by name.
type fieldScore struct {
	headTP, headGiven, headLabelled int
	authTP, authGiven, authLabelled int
}

func (s *fieldScore) add(l fieldLabel, headline string, authors []string) {
	if l.Headline != "" {
		s.headLabelled++
		if headline != "" {
			s.headGiven++
			if sameHeadline(headline, l.Headline) {
				s.headTP++
			}
		}
	}
	if l.Authors != nil {
		s.authLabelled += len(l.Authors)
		want := map[string]bool{}
		for _, a := range l.Authors {
			want[normTitle(a)] = true
		}
		seen := map[string]bool{}
		for _, a := range authors {
			n := normTitle(a)
			if n == "" || seen[n] {
				continue
			}
			seen[n] = true
			s.authGiven++
			if want[n] {
				s.authTP++
			}
		}
	}
}

// sameHeadline: equal once case and punctuation are set aside, or one is the
// other with a site's name (up to four words) before or after it.
func sameHeadline(got, want string) bool {
	a, b := normTitle(got), normTitle(want)
	if a == b {
		return a != ""
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	if a == "" {
		return false
	}
	rest, ok := strings.CutPrefix(b, a+" ")
	if !ok {
		rest, ok = strings.CutSuffix(b, " "+a)
	}
	return ok && len(strings.Fields(rest)) <= 4
}

// trafilaturaMockDir is where go-trafilatura's module keeps its test pages: the
// module this bench builds with, found by the go command.
func trafilaturaMockDir() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/markusmobius/go-trafilatura").Output()
	if err != nil {
		return "", fmt.Errorf("go list -m github.com/markusmobius/go-trafilatura: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "test-files", "mock"), nil
}

// benchLabelledFields scores headlines and authors, ours and go-trafilatura's,
// against the labels of trafilatura's real-world metadata tests.
func benchLabelledFields(dir string, out map[string]any) error {
	var labels []fieldLabel
	if err := json.Unmarshal(trafilaturaLabelsJSON, &labels); err != nil {
		return fmt.Errorf("trafilatura labels: %v", err)
	}
	if dir == "" {
		d, err := trafilaturaMockDir()
		if err != nil {
			return err
		}
		dir = d
	}
	var ours, tf fieldScore
	for _, l := range labels {
		body, err := os.ReadFile(filepath.Join(dir, l.File))
		if err != nil {
			return fmt.Errorf("trafilatura's test page %s: %v (pass --trafilatura-mock DIR: go-trafilatura's test-files/mock)", l.File, err)
		}
		md := page.Parse(body, pageContentType, nil).Meta(l.URL, time.Time{})
		ours.add(l, md.Headline.Value, md.Authors)
		var tm trafilatura.Metadata
		u, _ := nurl.Parse(l.URL)
		if res, err := trafilatura.Extract(bytes.NewReader(body), trafilatura.Options{EnableFallback: true, OriginalURL: u}); err == nil && res != nil {
			tm = res.Metadata
		}
		var tfAuthors []string
		for _, a := range strings.Split(tm.Author, ";") {
			if a = strings.TrimSpace(a); a != "" {
				tfAuthors = append(tfAuthors, a)
			}
		}
		tf.add(l, tm.Title, tfAuthors)
		if os.Getenv("METADATA_DIFFS") != "" {
			fmt.Printf("  %s: headline ours %q, go-trafilatura %q, label %q; authors ours %q, go-trafilatura %q, label %q\n",
				l.File, md.Headline.Value, tm.Title, l.Headline, md.Authors, tfAuthors, l.Authors)
		}
	}
	fmt.Printf("metadata: headlines and authors against labels: trafilatura's real-world metadata tests (%d pages: %d headlines, %d authors; %s)\n",
		len(labels), ours.headLabelled, ours.authLabelled, dir)
	fmt.Printf("  %-16s %18s %15s %18s %15s\n", "extractor", "headline precision", "headline recall", "author precision", "author recall")
	for _, row := range []struct {
		name string
		s    fieldScore
		key  string
	}{{"crawlconsole", ours, ""}, {"go-trafilatura", tf, "go_trafilatura_"}} {
		hp, hr := ratio(row.s.headTP, row.s.headGiven), ratio(row.s.headTP, row.s.headLabelled)
		ap, ar := ratio(row.s.authTP, row.s.authGiven), ratio(row.s.authTP, row.s.authLabelled)
		fmt.Printf("  %-16s %18.3f %15.3f %18.3f %15.3f\n", row.name, hp, hr, ap, ar)
		out[row.key+"headline_precision"], out[row.key+"headline_recall"] = round3(hp), round3(hr)
		out[row.key+"author_precision"], out[row.key+"author_recall"] = round3(ap), round3(ar)
	}
	fmt.Println("  (trafilatura's own regression expectations: go-trafilatura is written to pass them)")
	fmt.Println()
	return nil
}
