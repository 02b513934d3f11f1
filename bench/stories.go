package main

// go run ./bench stories [--corpus DIR] [--synthetic N]: how well stories group
// syndicated copies of one article across URLs and sites, and what the SimHash
// index (engine/stories) costs.
//
// On the article extraction benchmark's pages (github.com/scrapinghub/
// article-extraction-benchmark, 181 real articles, MIT; the project keeps a copy in
// ../shared/corpus/article-extraction-benchmark), each article is published by its
// original page and syndicated twice as outlets do it (stories_syndicate.go): the
// article's text in another outlet's template (other boilerplate), a byline, a
// dateline on the first paragraph, ads between paragraphs and a rewritten
// headline. All 543 pages go into one book in a shuffled order, so a copy often
// comes before its original:
//
//   - grouped_share: copies in the story of their original (goal >= 0.98);
//   - false_group_share: distinct articles sharing a story with another (goal <= 0.005);
//   - earliest_first_share: stories whose first page is the original publisher;
//
// against two baselines on the same pages: an exact digest of the main text
// (Nutch's dedup job, Browsertrix's deduplication: identical content only) and a
// SimHash of the whole page (no main-text extraction). Then the index's lookup
// CPU per page and memory per page, on the corpus and at --synthetic (1,000,000)
// random fingerprints, against a linear scan.

import (
	"crypto/sha1"
	"flag"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/mfonda/simhash"

	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/stories"
)

func init() { register("stories", runStories) }

// storyPage is one published page of the bench: which article it carries and
// whether it is the original.
type storyPage struct {
	article  int
	original bool
	url      string
	html     []byte
	at       time.Time // publication time: the original first
}

// grouping assigns each page a group; two pages in one group are one story.
type grouping struct {
	name  string
	group func(pages []storyPage) []string // per page, its group ("" = alone)
}

func runStories(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("stories", flag.ContinueOnError)
	corpus := fs.String("corpus", defaultCorpus, "the article extraction benchmark (ground-truth.json, html/)")
	synthetic := fs.Int("synthetic", 1_000_000, "random fingerprints for the index's lookup cost and memory at scale")
	seed := fs.Uint64("seed", 1, "seed of the syndication and the order pages arrive in")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	dir, ok, looked := findTestSet(*corpus, "ground-truth.json")
	if !ok {
		fmt.Fprintln(os.Stderr, corpusMissing("stories", looked))
		return map[string]any{"skipped": "no corpus at " + strings.Join(looked, " or ")}, nil
	}
	*corpus = dir
	corpusPages, err := loadCorpus(*corpus)
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	r := rand.New(rand.NewPCG(*seed, 0x5707))
	pages := syndicate(corpusPages, r)
	r.Shuffle(len(pages), func(i, j int) { pages[i], pages[j] = pages[j], pages[i] })
	fmt.Printf("stories: %d articles of the article extraction benchmark (%s), each with %d syndicated copies: %d pages, shuffled\n\n",
		len(corpusPages), *corpus, copiesPerArticle, len(pages))

	out := map[string]any{"articles": len(corpusPages), "pages": len(pages)}
	fmt.Printf("%-22s %14s %18s %20s\n", "grouping", "grouped_share", "false_group_share", "earliest_first_share")
	var ours map[string]float64
	var book *stories.Book
	ourGroups := func(pages []storyPage) []string {
		var groups []string
		groups, book = groupByBook(pages)
		return groups
	}
	for _, g := range []grouping{{"crawlconsole", ourGroups}, {"page_fingerprint", groupByPageFingerprint}, {"exact_text_digest", groupByTextDigest}, {"whole_page_simhash", groupByPageSimHash}} {
		groups := g.group(pages)
		m := scoreGrouping(pages, groups)
		if book != nil {
			m["earliest_first_share"] = earliestFirst(pages, book)
			book = nil
		}
		fmt.Printf("%-22s %14.3f %18.3f %20s\n", g.name, m["grouped_share"], m["false_group_share"], earliestCell(m))
		if g.name == "crawlconsole" {
			ours = m
			for k, v := range m {
				out[k] = round3(v)
			}
			continue
		}
		out[g.name+"_grouped_share"] = round3(m["grouped_share"])
		out[g.name+"_false_group_share"] = round3(m["false_group_share"])
	}
	fmt.Println()
	distances(pages, "crawlconsole", storyFingerprint)
	distances(pages, "page_fingerprint", func(b []byte) (uint64, bool) {
		sig, _, ok := page.Sign(b, corpusContentType)
		return sig.SimHash, ok && !sig.Fallback
	})
	fmt.Printf("\ngoals: grouped_share %.3f (>= 0.98: %s), false_group_share %.3f (<= 0.005: %s)\n\n",
		ours["grouped_share"], pass(ours["grouped_share"] >= 0.98), ours["false_group_share"], pass(ours["false_group_share"] <= 0.005))

	cost := indexCost(*synthetic, r)
	for k, v := range cost {
		out[k] = v
	}
	return out, nil
}

// pass words a goal's verdict.
func pass(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

func earliestCell(m map[string]float64) string {
	if v, ok := m["earliest_first_share"]; ok {
		return fmt.Sprintf("%.3f", v)
	}
	return "-"
}

// groupByBook is crawlconsole: each page's main-text SimHash (page.Sign, as the
// engine stores it) into a stories.Book, in arrival order.
func groupByBook(pages []storyPage) ([]string, *stories.Book) {
	b := stories.NewBook()
	out := make([]string, len(pages))
	for i, p := range pages {
		fp, ok := storyFingerprint(p.html)
		if !ok {
			continue
		}
		out[i], _ = b.Add(stories.Page{URL: p.url, Site: p.url, SimHash: fp, Published: p.at, Fetched: p.at})
	}
	return out, b
}

// storyFingerprint is the engine's: stories.Fingerprint of the page's main text.
func storyFingerprint(html []byte) (uint64, bool) {
	t, ok := page.MainText(html, corpusContentType)
	if !ok {
		return 0, false
	}
	return stories.Fingerprint(t)
}

// groupByPageFingerprint groups by the page fingerprint (page.Signature.SimHash,
// headline and every line) in a stories.Book: what the change detector reads.
func groupByPageFingerprint(pages []storyPage) []string {
	b := stories.NewBook()
	out := make([]string, len(pages))
	for i, p := range pages {
		sig, _, ok := page.Sign(p.html, corpusContentType)
		if !ok || sig.Fallback {
			continue
		}
		out[i], _ = b.Add(stories.Page{URL: p.url, SimHash: sig.SimHash})
	}
	return out
}

// distances prints how far each copy's fingerprint is from its original's, and
// the nearest two distinct articles' originals are.
func distances(pages []storyPage, name string, fingerprint func([]byte) (uint64, bool)) {
	orig := map[int]uint64{}
	fps := make([]uint64, len(pages))
	oks := make([]bool, len(pages))
	for i, p := range pages {
		fps[i], oks[i] = fingerprint(p.html)
		if p.original && oks[i] {
			orig[p.article] = fps[i]
		}
	}
	var hist [8]int // 0..6, 7 = 7 or more
	for i, p := range pages {
		if p.original || !oks[i] {
			continue
		}
		o, ok := orig[p.article]
		if !ok {
			hist[7]++
			continue
		}
		hist[min(bits.OnesCount64(o^fps[i]), 7)]++
	}
	nearest := 64
	for a, fa := range orig {
		for b, fb := range orig {
			if a < b {
				nearest = min(nearest, bits.OnesCount64(fa^fb))
			}
		}
	}
	fmt.Printf("%-22s copy-to-original bits 0..6,7+: %v; nearest distinct originals: %d bits\n", name, hist, nearest)
}

// earliestFirst is the share of the stories holding an original and a copy of it
// whose first page is the original, the earliest publisher.
func earliestFirst(pages []storyPage, b *stories.Book) float64 {
	n, first := 0, 0
	for _, p := range pages {
		if !p.original {
			continue
		}
		s, ok := b.StoryOf(p.url)
		if !ok || len(s.Pages) < 2 {
			continue
		}
		n++
		if s.Pages[0].URL == p.url {
			first++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(first) / float64(n)
}

// groupByTextDigest groups pages whose extracted main text is identical.
func groupByTextDigest(pages []storyPage) []string {
	out := make([]string, len(pages))
	for i, p := range pages {
		if t, ok := page.MainText(p.html, corpusContentType); ok {
			out[i] = fmt.Sprintf("%x", sha1.Sum([]byte(t.Body)))
		}
	}
	return out
}

// groupByPageSimHash groups pages whose whole-page SimHash (mfonda/simhash's word
// features over the raw HTML) is within stories.MaxDistance, greedily.
func groupByPageSimHash(pages []storyPage) []string {
	out := make([]string, len(pages))
	var fps []uint64
	var ids []string
	for i, p := range pages {
		fp := simhash.Simhash(simhash.NewWordFeatureSet(p.html))
		out[i] = fmt.Sprint(i)
		for j, f := range fps {
			if bits.OnesCount64(f^fp) <= stories.MaxDistance {
				out[i] = ids[j]
				break
			}
		}
		fps, ids = append(fps, fp), append(ids, out[i])
	}
	return out
}

// scoreGrouping computes the bench's shares from the groups given to the pages.
func scoreGrouping(pages []storyPage, groups []string) map[string]float64 {
	originalGroup := map[int]string{}
	for i, p := range pages {
		if p.original {
			originalGroup[p.article] = groups[i]
		}
	}
	copies, grouped := 0, 0
	articlesOf := map[string]map[int]bool{}
	for i, p := range pages {
		if g := groups[i]; g != "" {
			if articlesOf[g] == nil {
				articlesOf[g] = map[int]bool{}
			}
			articlesOf[g][p.article] = true
		}
		if !p.original {
			copies++
			if g := groups[i]; g != "" && g == originalGroup[p.article] {
				grouped++
			}
		}
	}
	wrong := map[int]bool{}
	for _, arts := range articlesOf {
		if len(arts) > 1 {
			for a := range arts {
				wrong[a] = true
			}
		}
	}
	return map[string]float64{
		"grouped_share":     float64(grouped) / float64(copies),
		"false_group_share": float64(len(wrong)) / float64(len(originalGroup)),
	}
}
