package main

// The article extraction benchmark's pages and the extractors the "changes" bench
// compares on them: crawlconsole's main-text extractor (engine/page), the one it
// replaced (the seed's, kept as seedPageText (changes_seed.go)), and the two Go libraries the
// benchmark ranks highest, go-trafilatura and readeck/go-readability.

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	readability "codeberg.org/readeck/go-readability/v2"
	trafilatura "github.com/markusmobius/go-trafilatura"

	"github.com/crawlconsole/crawlconsole/engine/page"
)

// corpusPage is one benchmark page: its HTML (UTF-8, as the benchmark's own runners
// read it) and the reference article body.
type corpusPage struct {
	ID, URL string
	HTML    []byte
	Truth   string
}

// corpusContentType is how every benchmark page is served to the extractors.
const corpusContentType = "text/html; charset=utf-8"

// loadCorpus reads ground-truth.json and html/<id>.html.gz from dir.
func loadCorpus(dir string) ([]corpusPage, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "ground-truth.json"))
	if err != nil {
		return nil, err
	}
	var truth map[string]struct {
		ArticleBody string `json:"articleBody"`
		URL         string `json:"url"`
	}
	if err := json.Unmarshal(raw, &truth); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, "ground-truth.json"), err)
	}
	ids := make([]string, 0, len(truth))
	for id := range truth {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	pages := make([]corpusPage, 0, len(ids))
	for _, id := range ids {
		path := filepath.Join(dir, "html", id+".html.gz")
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		body, err := io.ReadAll(zr)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		pages = append(pages, corpusPage{ID: id, URL: truth[id].URL, HTML: body, Truth: truth[id].ArticleBody})
	}
	return pages, nil
}

// extractor is one way of getting a page's main text.
type extractor struct {
	name    string
	licence string
	// deps is the dependency weight: modules the extractor adds to the binary.
	deps string
	text func(body []byte) string
}

// extractors lists the contenders, crawlconsole's own first.
func extractors() []extractor {
	return []extractor{
		{name: "crawlconsole", licence: "(ours)", deps: "x/net/html (already used)", text: func(b []byte) string {
			t, _ := page.MainText(b, corpusContentType)
			return t.Body
		}},
		{name: "today", licence: "(ours)", deps: "x/net/html (already used)", text: func(b []byte) string {
			t, _ := seedPageText(b, corpusContentType)
			return t
		}},
		{name: "go_trafilatura", licence: "Apache-2.0", deps: "26 modules incl. wazero + go-re2 (regexp in WebAssembly), go-readability, go-domdistiller, go-htmldate, go-dateparser", text: trafilaturaText},
		{name: "readeck_readability", licence: "Apache-2.0", deps: "go-shiori/dom, cascadia, dateparse, chardet", text: readabilityText},
	}
}

// trafilaturaText runs go-trafilatura as the benchmark does: defaults with its
// fallback extractors on.
func trafilaturaText(body []byte) string {
	res, err := trafilatura.Extract(bytes.NewReader(body), trafilatura.Options{EnableFallback: true})
	if err != nil || res == nil {
		return ""
	}
	return res.ContentText
}

// readabilityText runs readeck/go-readability and renders the article as text.
func readabilityText(body []byte) string {
	p := readability.NewParser()
	art, err := p.Parse(bytes.NewReader(body), nil)
	if err != nil {
		return ""
	}
	var sb strings.Builder
	if err := art.RenderText(&sb); err != nil {
		return ""
	}
	return sb.String()
}
