package store

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"time"
)

// processCPU is the process's user and system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSavePage stores pages as a first crawl does: a 2-8 KB body, the page's
// metadata, its revisit state with the change signal, its exchange and 8 links, after
// the lane's InProgress mark. cpu-µs/page is the whole process's CPU (callers'
// compression and the writer), steadier than ns/op on a shared machine:
//
//	go test -run '^$' -bench SavePage -benchtime 20000x ./store/
func BenchmarkSavePage(b *testing.B) {
	words := strings.Fields("crawl lane egress revisit host page news policy market river city council " +
		"report weather sport science health culture travel budget school water energy court minister")
	rng := rand.New(rand.NewPCG(42, 43))
	var bodies [][]byte
	for range 64 {
		var sb strings.Builder
		sb.WriteString("<!doctype html><html><head><meta charset=utf-8><title>t</title></head><body><main>")
		for size := 2048 + rng.IntN(6*1024); sb.Len() < size; {
			sb.WriteString("<p>")
			for range 12 + rng.IntN(20) {
				sb.WriteString(words[rng.IntN(len(words))] + " ")
			}
			fmt.Fprintf(&sb, "<a href=\"/articles/%d/story-%d.html\">more</a></p>\n", rng.IntN(100), rng.IntN(1_000_000))
		}
		bodies = append(bodies, []byte(sb.String()))
	}
	s, err := Open(b.TempDir()+"/crawl.db", Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	now := time.Now()
	cpu0, n := processCPU(), 0
	for i := 0; b.Loop(); i++ {
		u := fmt.Sprintf("http://site%d.example/articles/%d/story-%d.html", i%50, i/1000, i)
		p := Page{URL: u, FetchedAt: now, Status: 200, ContentType: "text/html", Body: bodies[i%len(bodies)],
			Lane: i % 16, SimHash: rng.Uint64(), Duration: 3 * time.Millisecond,
			Meta: &PageMeta{Published: "2024-03-05", PublishedFrom: "json-ld", PublishedAt: now,
				Headline: "A headline of some words", HeadlineFrom: "og", Authors: []string{"A. One"},
				AuthorsFrom: "meta", Language: "en", LanguageFrom: "html", Canonical: u, CanonicalFrom: "link"},
			Revisit: &Revisit{URL: u, Class: "web_com", First: now, X: 1, Last: now, Next: now.Add(time.Hour),
				Hash: rng.Uint64(), HasHash: true, Fetches: 1, Distance: -1, Freq: 0.1, Price: 1,
				Policy: []byte{1, 2, 3, 4}, Fresh: 0.5, Age: 1,
				Change: &RevisitChange{Text: rng.Uint64(), Title: rng.Uint64(), Page: rng.Uint64(), ChangeDistance: -1}},
			Capture: &Capture{URL: u, FetchedAt: now, Status: 200, StatusLine: "HTTP/1.1 200 OK",
				RequestHead: "GET / HTTP/1.1\r\nHost: x\r\n", ResponseHead: "Content-Type: text/html\r\n", RemoteIP: "127.0.0.1"},
		}
		links := make([]URL, 8)
		for j := range links {
			links[j] = URL{URL: fmt.Sprintf("http://site%d.example/articles/%d/story-%d.html",
				rng.IntN(50), rng.IntN(100), rng.IntN(1_000_000)), Host: fmt.Sprintf("site%d.example", j)}
		}
		s.SetState(u, InProgress, i%16, "")
		s.SavePage(p, links, nil)
		n++
	}
	if err := s.Flush(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(max(n, 1)), "cpu-µs/page")
}

// BenchmarkSavePageCrawl stores pages as the throughput crawl hands them to the store:
// each page's URL was added before (as a link of an earlier page), and each page
// brings about one new link (1.07 a page there), with its metadata, revisit state
// with the change signal and exchange. Instructions a page under callgrind:
//
//	go test -c -o store.test ./store/ && GOGC=off GODEBUG=asyncpreemptoff=1 \
//	  valgrind --tool=callgrind ./store.test -test.run '^$' -test.bench 'SavePageCrawl$' \
//	  -test.benchtime 600x -test.cpu 1   (and 1800x: the difference over 1200 pages)
func BenchmarkSavePageCrawl(b *testing.B) {
	words := strings.Fields("crawl lane egress revisit host page news policy market river city council")
	rng := rand.New(rand.NewPCG(42, 43))
	var bodies [][]byte
	for range 64 {
		var sb strings.Builder
		sb.WriteString("<!doctype html><html><head><title>t</title></head><body><main>")
		for size := 2048 + rng.IntN(6*1024); sb.Len() < size; {
			sb.WriteString("<p>")
			for range 12 + rng.IntN(20) {
				sb.WriteString(words[rng.IntN(len(words))] + " ")
			}
			sb.WriteString("</p>\n")
		}
		bodies = append(bodies, []byte(sb.String()))
	}
	// Batches of 37 pages (their InProgress marks and pages), as the throughput
	// crawl's 263 commits for 9,780 pages; by size alone, so that the count of
	// instructions does not depend on timing.
	s, err := Open(b.TempDir()+"/crawl.db", Options{BatchSize: 74, BatchDelay: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	urls := make([]string, 1<<16)
	for i := range urls {
		urls[i] = fmt.Sprintf("http://site%d.example/articles/%d/story-%d.html", i%50, i/1000, i)
	}
	s.AddURLs([]URL{{URL: urls[0], Host: "site0.example"}}, nil)
	now := time.Now()
	cpu0, n := processCPU(), 0
	for i := 0; b.Loop(); i++ {
		u := urls[i%len(urls)]
		var links []URL
		if i+1 < len(urls) {
			links = []URL{{URL: urls[i+1], Host: fmt.Sprintf("site%d.example", (i+1)%50), Depth: 1}}
		}
		p := Page{URL: u, FetchedAt: now, Status: 200, ContentType: "text/html", Body: bodies[i%len(bodies)],
			Lane: i % 16, SimHash: rng.Uint64(), Duration: 3 * time.Millisecond,
			Meta: &PageMeta{Published: "2024-03-05", PublishedFrom: "json-ld", PublishedAt: now,
				Headline: "A headline of some words", HeadlineFrom: "og", Language: "en", LanguageFrom: "html"},
			Revisit: &Revisit{URL: u, Class: "web_com", First: now, X: 1, Last: now, Next: now.Add(time.Hour),
				Hash: rng.Uint64(), HasHash: true, Fetches: 1, Distance: -1, Freq: 0.1, Price: 1,
				Policy: []byte{1, 2, 3, 4}, Fresh: 0.5, Age: 1,
				Change: &RevisitChange{Text: rng.Uint64(), Title: rng.Uint64(), Page: rng.Uint64(), ChangeDistance: -1}},
			Capture: &Capture{URL: u, FetchedAt: now, Status: 200, StatusLine: "HTTP/1.1 200 OK",
				RequestHead: "GET / HTTP/1.1\r\nHost: x\r\n", ResponseHead: "Content-Type: text/html\r\n", RemoteIP: "127.0.0.1"},
		}
		s.SetState(u, InProgress, i%16, "")
		s.SavePage(p, links, nil)
		n++
	}
	if err := s.Flush(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(max(n, 1)), "cpu-µs/page")
}
