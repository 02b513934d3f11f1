package engine_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
)

// TestStoriesGroupedWhileCrawling: one article run under two URLs with two
// templates and headlines, and another article, make one story of two pages in the
// Stories view (earliest stored first); the listing page is in none.
func TestStoriesGroupedWhileCrawling(t *testing.T) {
	t.Parallel()
	wire := []string{
		"The national weather service issued a cold wave warning on Friday, saying temperatures across the central and eastern regions would fall by more than ten degrees over the next three days.",
		"Forecasters urged residents to protect themselves against the cold, and asked road authorities to prepare for ice and snow on highways, while farmers were told to keep greenhouses warm.",
		"The chief forecaster said temperatures would recover slowly once the cold wave passes, but another burst of cold air could arrive in early December, and warnings would follow as it develops.",
	}
	other := []string{
		"The city's culture office announced on Thursday that twenty parks would host a winter festival of light this year, showing large lantern installations designed by local artists until spring.",
		"The organisers said the festival has three parts, traditional lanterns, modern light shows and interactive installations, where visitors can play games of light and shadow with their children.",
	}
	render := func(w http.ResponseWriter, outlet, headline string, paras []string) {
		w.Header().Set("Content-Type", "text/html")
		var b strings.Builder
		fmt.Fprintf(&b, "<html><body><nav><a href=/>%s</a></nav><article><h1>%s</h1><p>By %s staff</p>", outlet, headline, outlet)
		for _, p := range paras {
			fmt.Fprintf(&b, "<p>%s</p>", p)
		}
		b.WriteString("</article></body></html>")
		w.Write([]byte(b.String()))
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><body><a href="/wire/cold">a</a> <a href="/local/2026/brace-yourselves">b</a> <a href="/lanterns">c</a></body></html>`))
	})
	mux.HandleFunc("/wire/cold", func(w http.ResponseWriter, r *http.Request) {
		render(w, "Wire", "Cold wave warning issued", wire)
	})
	mux.HandleFunc("/local/2026/brace-yourselves", func(w http.ResponseWriter, r *http.Request) {
		render(w, "Harbor Times", "Brace yourselves: temperatures to plunge", wire)
	})
	mux.HandleFunc("/lanterns", func(w http.ResponseWriter, r *http.Request) {
		render(w, "Wire", "Lantern festival opens", other)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	o := engine.DefaultOptions()
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	quickSiteOptions(&o, []string{srv.URL + "/"})
	o.Robots = false
	e := enginetest.CrawlToDone(t, o)
	v := e.Snapshot().Stories
	if v == nil || v.Grouped != 1 || len(v.Rows) != 1 || len(v.Rows[0].Pages) != 2 {
		t.Fatalf("stories view %+v: want one story of the two cold-wave pages", v)
	}
	got := map[string]bool{}
	for _, p := range v.Rows[0].Pages {
		got[strings.TrimPrefix(p.URL, srv.URL)] = true
	}
	if !got["/wire/cold"] || !got["/local/2026/brace-yourselves"] {
		t.Fatalf("story pages %v", v.Rows[0].Pages)
	}
	if p := v.Rows[0].Pages; p[0].Fetched.After(p[1].Fetched) {
		t.Fatalf("story pages not earliest first: %v", p)
	}
}
