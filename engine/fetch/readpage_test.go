package fetch

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/crawlconsole/crawlconsole/engine/page"
)

// TestReadPageAsBefore: reading a page's links in the page model's tokenizer pass
// (readPage) finds exactly what the link scan before it found (extractLinksOld, a
// copy of it, over the bytes the pass reads: linksAsRead), in one pass, on the sandbox's pages with their content faults, on the article
// benchmark's real pages when present, and on broken markup; and the signature the
// engine finishes from that pass is the one page.Sign computes from the body.
func TestReadPageAsBefore(t *testing.T) {
	sets := map[string][]testPage{
		"sandbox": sandboxPages(t, 3000, true),
		"broken":  brokenPages(),
	}
	if c := corpusPages(t); len(c) > 0 {
		sets["corpus"] = c
	} else {
		t.Log("no article extraction benchmark at $CRAWLCONSOLE_CORPUS or ../shared/corpus: get github.com/scrapinghub/article-extraction-benchmark to compare on real pages too")
	}
	for name, pages := range sets {
		t.Run(name, func(t *testing.T) {
			for _, p := range pages {
				want := linksAsRead(p.body, p.contentType)
				before := page.TokenizerPasses()
				got, parsed := readPage(p.body, p.contentType, "crawlconsole")
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: links differ from the old scan: %s", p.url, linksDiff(got, want))
				}
				sig, text, ok := parsed.Sign(p.body, p.contentType)
				if n := page.TokenizerPasses() - before; n != 1 {
					t.Fatalf("%s: links and signature took %d tokenizer passes, want 1", p.url, n)
				}
				wantSig, wantText, wantOK := page.Sign(p.body, p.contentType)
				if sig != wantSig || text != wantText || ok != wantOK {
					t.Fatalf("%s: signature from the shared pass %+v/%v, from the body %+v/%v", p.url, sig, ok, wantSig, wantOK)
				}
			}
		})
	}
}

// linksDiff says where two readings of a page first differ.
func linksDiff(got, want pageLinks) string {
	switch {
	case !reflect.DeepEqual(got.Links, want.Links):
		return fmt.Sprintf("links: %d vs %d, first %q vs %q", len(got.Links), len(want.Links), firstDiff(got.Links, want.Links), firstDiff(want.Links, got.Links))
	case !reflect.DeepEqual(got.Nofollow, want.Nofollow):
		return fmt.Sprintf("nofollow: %q vs %q", got.Nofollow, want.Nofollow)
	case !reflect.DeepEqual(got.Feeds, want.Feeds):
		return fmt.Sprintf("feeds: %q vs %q", got.Feeds, want.Feeds)
	}
	return fmt.Sprintf("base %q canonical %q robots %+v vs base %q canonical %q robots %+v",
		got.Base, got.Canonical, got.Robots, want.Base, want.Canonical, want.Robots)
}

// firstDiff is the first of a that b does not have at the same place.
func firstDiff(a, b []string) string {
	for i, s := range a {
		if i >= len(b) || b[i] != s {
			return s
		}
	}
	return ""
}

// brokenPages are bodies that test the corners of both readers: repeated and
// unquoted attributes, entities, NULs, tags inside raw text, unclosed tags, another
// encoding.
func brokenPages() []testPage {
	bodies := []string{
		`<html><head><base href=" /d/ "><base href="/e/"><link rel=canonical href="/c" href="/c2"><link rel="alternate canonical" type="application/rss+xml" href="/f"></head><a href="a" href="b" rel="x nofollow">x</a><area href=/m>`,
		`<meta name=robots content="noindex, nofollow"><meta name=crawlconsole content=nofollow><meta name="ROBOTS" content="none">`,
		`<a HREF="&amp;x=1&lt;">e</a><a href="javascript:x"><a href='unterminated`,
		"\x00\xff\xfe<a href=x>", "<a hr\x00ef=y href=z>", `<svg><a href="s"/></svg><math><a href="m">`,
		`<script>document.write('<a href="in-script">')</script><noscript><a href="ns"></a></noscript><title><a href="t"></title><a href=after>`,
		`<textarea><a href="ta"></textarea><a href=ok>`, strings.Repeat("<div>", 3000) + `<a href=deep>`,
		`<html><head><meta charset="windows-1251"><title>\xcf\xf0\xe8</title></head><body><p>\xcf\xf0\xe8\xe2\xe5\xf2 <a href="/\xe0">\xe0</a></p></body></html>`,
		`<p>no links at all, only text, with commas, and more text to be a paragraph of an article.</p>`,
	}
	var out []testPage
	for i, b := range bodies {
		for _, ct := range []string{"text/html; charset=utf-8", "text/html", ""} {
			out = append(out, testPage{url: "broken#" + string(rune('a'+i)) + " " + ct, contentType: ct, body: []byte(b)})
		}
	}
	return out
}

// linksAsRead is what readPage must find: the old scan over the bytes the page's one
// tokenizer pass reads, the body itself or, for a page in another encoding, its
// decoded text (links come as UTF-8, as a browser reads them).
func linksAsRead(body []byte, contentType string) pageLinks {
	dec, isHTML, ok := page.Decode(body, contentType)
	if ok && isHTML && (len(dec) == 0 || &dec[0] != &body[0]) {
		return extractLinksOld(dec, "crawlconsole")
	}
	return extractLinksOld(body, "crawlconsole")
}

// extractLinksOld is extractLinks as it was before readPage, kept to compare.
func extractLinksOld(body []byte, token string) (p pageLinks) {
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return p
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			if !hasAttr {
				continue
			}
			switch a := atom.Lookup(name); a {
			case atom.A, atom.Area:
				href, ok, rel, _ := oldAttr2(z, "href", "rel")
				if ok {
					if oldHasToken(rel, "nofollow") {
						p.Nofollow = append(p.Nofollow, href)
					} else {
						p.Links = append(p.Links, href)
					}
				}
			case atom.Base:
				if v, ok := oldAttr(z, "href"); ok && p.Base == "" {
					p.Base = v
				}
			case atom.Link:
				href, typ, rel := oldLinkAttrs(z)
				if p.Canonical == "" && href != "" && oldHasToken(rel, "canonical") {
					p.Canonical = href
				}
				if href != "" && oldHasToken(rel, "alternate") && page.FeedType(typ) && len(p.Feeds) < page.MaxFeedLinks {
					p.Feeds = append(p.Feeds, href)
				}
			case atom.Meta:
				if name, ok, content, _ := oldAttr2(z, "name", "content"); ok {
					p.Robots.AddMeta(name, content, token)
				}
			}
		}
	}
}

// oldAttr, oldAttr2 and oldLinkAttrs are the attribute readers of extractLinksOld.
func oldAttr(z *html.Tokenizer, name string) (string, bool) {
	for {
		k, v, more := z.TagAttr()
		if string(k) == name {
			return strings.TrimSpace(string(v)), true
		}
		if !more {
			return "", false
		}
	}
}

func oldAttr2(z *html.Tokenizer, n1, n2 string) (v1 string, ok1 bool, v2 string, ok2 bool) {
	for {
		k, v, more := z.TagAttr()
		switch {
		case !ok1 && string(k) == n1:
			v1, ok1 = strings.TrimSpace(string(v)), true
		case !ok2 && string(k) == n2:
			v2, ok2 = strings.TrimSpace(string(v)), true
		}
		if !more {
			return
		}
	}
}

func oldLinkAttrs(z *html.Tokenizer) (href, typ, rel string) {
	for {
		k, v, more := z.TagAttr()
		switch string(k) {
		case "href":
			href = string(v)
		case "type":
			typ = string(v)
		case "rel":
			rel = string(v)
		}
		if !more {
			return
		}
	}
}

// TestFetchHandsOverItsParse: a fetched HTML page comes with the parse its links
// were read in, and the engine's signature from it is the body's, in UTF-8 or in
// another encoding; an error page too (the block-page judge reads its text); a
// fetcher with KeepParse off keeps none.
func TestFetchHandsOverItsParse(t *testing.T) {
	article := `<html><head><title>t</title></head><body><article><h1>Headline</h1><p>` +
		strings.Repeat("A paragraph of the article, long enough to be scored. ", 5) + `<a href="/next">next</a></p></article></body></html>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/utf8":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, article)
		case "/cp1251":
			w.Header().Set("Content-Type", "text/html; charset=windows-1251")
			fmt.Fprint(w, strings.Replace(article, "Headline", "\xcf\xf0\xe8\xe2\xe5\xf2", 1))
		case "/gone":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, article)
		}
	}))
	defer srv.Close()
	cfg := Config{UserAgent: "crawlconsole-test", ConnectTimeout: 2 * time.Second, RequestTimeout: 5 * time.Second,
		MaxBodyBytes: 1 << 20, MaxRedirects: 3, ContentTypes: []string{"text/html"}, KeepParse: true}
	f, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, cfg)
	cfg.KeepParse = false
	worker, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, cfg)
	for _, c := range []struct {
		path   string
		status int
		parsed bool
	}{{"/utf8", 200, true}, {"/cp1251", 200, true}, {"/gone", 404, true}} {
		t.Run(c.path, func(t *testing.T) {
			if res, err := worker.Fetch(srv.URL+c.path, nil); err != nil || res.Parsed != nil || len(res.Links) != 1 {
				t.Fatalf("without KeepParse: %v, parse %v, links %q", err, res.Parsed != nil, res.Links)
			}
			res, err := f.Fetch(srv.URL+c.path, nil)
			if err != nil || res.Status != c.status {
				t.Fatalf("fetch: %v, status %d", err, res.Status)
			}
			if len(res.Links) != 1 || res.Links[0] != "/next" {
				t.Fatalf("links %q, want [/next]", res.Links)
			}
			if (res.Parsed != nil) != c.parsed {
				t.Fatalf("parse handed over: %v, want %v", res.Parsed != nil, c.parsed)
			}
			ct := res.Header.Get("Content-Type")
			sig, _, ok := res.Parsed.Sign(res.Body, ct)
			if want, _, wantOK := page.Sign(res.Body, ct); !ok || !wantOK || sig != want {
				t.Fatalf("signature from the fetch %+v/%v, from the body %+v/%v", sig, ok, want, wantOK)
			}
		})
	}
}

// oldHasToken is the rel-token test of extractLinksOld.
func oldHasToken(list, tok string) bool {
	for _, f := range strings.Fields(list) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}
