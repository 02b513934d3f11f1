package export_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/export"
	"github.com/crawlconsole/crawlconsole/store"
)

// TestWARCDuplicatesAcrossURLs: the same article body stored under three URLs (its
// page, a tracking-tagged copy, an AMP address) is exported once as a response and
// twice as identical-payload-digest revisits naming it (WARC-Refers-To, -Target-URI,
// -Date), with the bytes not repeated counted; a different body stays a response,
// and warcio.js reads every record.
func TestWARCDuplicatesAcrossURLs(t *testing.T) {
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	body := []byte("<html><body><article><h1>Storm</h1><p>" + strings.Repeat("The same wire story, word for word. ", 40) + "</p></article></body></html>")
	path := filepath.Join(t.TempDir(), "crawl.db")
	st, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	storedPage(st, "http://a.test/news/1", body, at)
	storedPage(st, "http://a.test/news/1-copy", body, at.Add(time.Minute))
	storedPage(st, "http://a.test/other", []byte("<p>another article</p>"), at.Add(2*time.Minute))
	storedPage(st, "http://a.test/amp/news/1", body, at.Add(3*time.Minute))
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = store.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rep, recs := exportAll(t, st)
	if rep.Duplicates != 2 || rep.BytesSaved != int64(2*len(body)) || rep.Responses != 2 {
		t.Fatalf("report %+v: want 2 responses, 2 duplicates saving %d bytes", rep, 2*len(body))
	}
	var first warcRecord
	dups := 0
	for _, r := range recs {
		switch uri := r.get("WARC-Target-URI"); {
		case r.get("WARC-Type") == "response" && uri == "http://a.test/news/1":
			first = r
		case r.get("WARC-Type") == "revisit":
			dups++
			if r.get("WARC-Profile") != "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest" ||
				r.get("WARC-Refers-To-Target-URI") != "http://a.test/news/1" || r.get("WARC-Refers-To-Date") != "2026-11-01T12:00:00Z" ||
				r.get("WARC-Refers-To") != first.get("WARC-Record-ID") || r.get("WARC-Payload-Digest") != sha1Digest(body) {
				t.Errorf("revisit of %s: %v; want one referring to the response of http://a.test/news/1 (%s)", uri, r.header, first.get("WARC-Record-ID"))
			}
			if _, _, payload := httpPayload(t, r.block); len(payload) != 0 {
				t.Errorf("revisit of %s repeats %d payload bytes", uri, len(payload))
			}
		}
	}
	if dups != 2 {
		t.Fatalf("%d revisit records, want 2", dups)
	}
	checkWithWarcioJS(t, rep.Files, recs)
}

// syndicatedPage is one outlet's page of an article: its own chrome, headline and
// byline around the same paragraphs.
func syndicatedPage(outlet, headline string, paras []string) []byte {
	var b strings.Builder
	b.WriteString("<html><head><title>" + headline + " | " + outlet + "</title></head><body><nav><a href=/>" + outlet + "</a> <a href=/world>World</a></nav><article><h1>" + headline + "</h1><p>By " + outlet + " staff</p>")
	for _, p := range paras {
		b.WriteString("<p>" + p + "</p>")
	}
	b.WriteString("</article><footer>© " + outlet + "</footer></body></html>")
	return []byte(b.String())
}

// TestJSONLStoryIDs: the JSONL lines of one article run by two outlets carry the
// same story id, another article another one, and a page of links none.
func TestJSONLStoryIDs(t *testing.T) {
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	wire := []string{
		"The national weather service issued a cold wave warning on Friday, saying temperatures across the central and eastern regions would fall by more than ten degrees over the next three days.",
		"Forecasters urged residents to protect themselves against the cold, and asked road authorities to prepare for ice and snow on highways, while farmers were told to keep greenhouses warm.",
		"The chief forecaster said temperatures would recover slowly once the cold wave passes, but another burst of cold air could arrive in early December, and warnings would follow as it develops.",
	}
	other := []string{
		"The city's culture office announced on Thursday that twenty parks would host a winter festival of light this year, showing large lantern installations designed by local artists until spring.",
		"The organisers said the festival has three parts, traditional lanterns, modern light shows and interactive installations, where visitors can play games of light and shadow with their children.",
	}
	path := filepath.Join(t.TempDir(), "crawl.db")
	st, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	storedPage(st, "http://a.test/cold-wave", syndicatedPage("Wire", "Cold wave warning issued", wire), at)
	storedPage(st, "http://a.test/lanterns", syndicatedPage("Wire", "Lantern festival opens", other), at.Add(time.Minute))
	storedPage(st, "http://b.test/2026/11/01/brace-yourselves", syndicatedPage("Harbor Times", "Brace yourselves: temperatures to plunge", wire), at.Add(2*time.Minute))
	storedPage(st, "http://a.test/", []byte("<html><body><ul><li><a href=/cold-wave>Cold</a></li><li><a href=/lanterns>Lanterns</a></li></ul></body></html>"), at.Add(3*time.Minute))
	out := reopenedJSONL(t, st, path)
	story := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var l export.PageLine
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		story[l.URL] = l.Story
	}
	cold, copyOf, lanterns := story["http://a.test/cold-wave"], story["http://b.test/2026/11/01/brace-yourselves"], story["http://a.test/lanterns"]
	if cold == "" || cold != copyOf || lanterns == "" || lanterns == cold || story["http://a.test/"] != "" {
		t.Fatalf("story ids %v: want the two cold-wave pages in one story, the lanterns in another, the links page in none", story)
	}
}

// TestJSONLResults: a page a round collected as a keyword result carries its site
// and keyword in `results` (a news page holding two keywords, both); a page that was
// no result carries []. `keyword` is a social search page's keyword, "" on every news
// page, so without `results` a news operator could not tell what a page was kept for.
func TestJSONLResults(t *testing.T) {
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	path := filepath.Join(t.TempDir(), "crawl.db")
	st, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	storedPage(st, "http://a.test/flood", []byte("<html><body><p>Флуд: flood and 台风 warnings.</p></body></html>"), at)
	storedPage(st, "http://a.test/other", []byte("<html><body><p>Nothing to see.</p></body></html>"), at.Add(time.Minute))
	st.SaveRound(at.Add(time.Hour), []store.Result{
		{URL: "http://a.test/flood", Site: "harbor", Keyword: "flood", Kind: "news", Host: "a.test", FetchedAt: at},
		{URL: "http://a.test/flood", Site: "harbor", Keyword: "台风", Kind: "news", Host: "a.test", FetchedAt: at},
	}, nil)
	out := reopenedJSONL(t, st, path)
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			t.Fatal(err)
		}
		var u string
		json.Unmarshal(raw["url"], &u)
		got[u] = string(raw["results"])
	}
	if got["http://a.test/flood"] != `["harbor:flood","harbor:台风"]` || got["http://a.test/other"] != `[]` {
		t.Errorf("results %v: want the flood page's two keywords of harbor, the other page []", got)
	}
}

// reopenedJSONL closes st (written at path), opens it read-only as the export command
// does, and returns its JSONL export.
func reopenedJSONL(t *testing.T, st *store.Store, path string) *bytes.Buffer {
	t.Helper()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := store.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	var out bytes.Buffer
	if _, err := export.JSONL(ro, &out, export.JSONLOptions{}); err != nil {
		t.Fatal(err)
	}
	return &out
}
