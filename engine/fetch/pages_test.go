package fetch

import (
	"net/url"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/page/pagetest"
)

// testPage is a body as a server sent it, with its Content-Type.
type testPage struct {
	url, contentType string
	body             []byte
}

func testPages(ps []pagetest.Page, prefix string) []testPage {
	out := make([]testPage, 0, len(ps))
	for _, p := range ps {
		out = append(out, testPage{url: prefix + p.URL, contentType: p.ContentType, body: p.Body})
	}
	return out
}

// sandboxPages renders up to n pages of a sandbox web with its default content
// faults (bad UTF-8, malformed markup, binary bodies labelled as text), reached from
// the sites' entry pages by the links this package extracts (nofollow ones too),
// breadth first, without a server.
func sandboxPages(tb testing.TB, n int, faults bool) []testPage {
	tb.Helper()
	links := func(page string, body []byte) []string {
		base, err := url.Parse(page)
		if err != nil {
			return nil
		}
		p := extractLinks(body, "crawlconsole")
		var out []string
		for _, l := range append(p.Links, p.Nofollow...) {
			if u, err := base.Parse(l); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
				u.Fragment = ""
				out = append(out, u.String())
			}
		}
		return out
	}
	out := testPages(pagetest.SandboxPages(n, faults, links, nil), "")
	if len(out) == 0 {
		tb.Fatal("the sandbox rendered no pages")
	}
	return out
}

// corpusPages reads the article extraction benchmark's pages (real sites' HTML),
// from $CRAWLCONSOLE_CORPUS or ../../../shared/corpus/article-extraction-benchmark;
// nil when absent.
func corpusPages(tb testing.TB) []testPage {
	tb.Helper()
	ps, err := pagetest.CorpusPages(pagetest.CorpusDir(checkoutParent))
	if err != nil {
		tb.Fatal(err)
	}
	if len(ps) == 0 {
		return nil
	}
	return testPages(ps, "file://")
}

// checkoutParent is the folder that holds the repository's checkout, from this package.
const checkoutParent = "../../.."
