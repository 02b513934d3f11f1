package export

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/stories"
	"github.com/crawlconsole/crawlconsole/store"
)

// PageLine is one line of the JSONL export: a stored page and what the crawl knows
// of it. Field names are part of the command-line contract.
type PageLine struct {
	URL         string   `json:"url"`
	FinalURL    string   `json:"final_url"` // after same-host redirects; url when none
	Status      int      `json:"status"`
	FetchedAt   string   `json:"fetched_at"` // RFC 3339, UTC
	ContentType string   `json:"content_type"`
	Title       string   `json:"title"`
	Text        string   `json:"text"`    // main text, the one revisit fingerprints (M2), one block per line
	Links       []string `json:"links"`   // absolute, normalised, in document order, each once
	SimHash     string   `json:"simhash"` // 64-bit SimHash of the main text, 16 hex digits ("" when none)
	// Story groups the pages that carry one article under different URLs and on
	// different sites (engine/stories): pages with the same story id are copies of
	// one another. "" for a page without article prose (a listing, a form).
	Story   string `json:"story"`
	Class   string `json:"class"` // soc, web_com, web_net, web_edu, web_gov
	Site    string `json:"site"`
	Keyword string `json:"keyword"` // the keyword a social site's search page was fetched for; "" for a news page
	// Results are the keywords the page was collected for as a result (M3, seed
	// 003: a news page holding the keyword, a social page found for it), by the
	// rounds ended so far, each "SITE:KEYWORD"; [] for none. They are exported
	// with the page, as the store keeps them beside it, so that a reader of the
	// export can tell which keywords each page answers.
	Results []string `json:"results"`
	Node    string   `json:"node"`   // worker that fetched it; "" in one process
	Egress  string   `json:"egress"` // egress name (never its address or credentials)

	// The page's metadata (engine/page Metadata), from the same parse as the text.
	Published string   `json:"published"` // publication date as precisely as the page gave it: 2024-03-05, 2024-03-05T10:20:00, 2024-03-05T10:20:00+01:00; "" when none
	Modified  string   `json:"modified"`  // last modification the page declares, likewise
	Headline  string   `json:"headline"`  // the article's headline
	Authors   []string `json:"authors"`   // its authors, each once
	Language  string   `json:"language"`  // ISO 639 code, lower case
	Canonical string   `json:"canonical"` // the page's canonical URL, absolute
	// MetaFrom says where each metadata field was read (its source tag, e.g.
	// "json-ld datePublished", "meta article:published_time", "h1", "lang attribute");
	// a field the page did not give is absent.
	MetaFrom map[string]string `json:"meta_from"`
}

// JSONLOptions says what to export.
type JSONLOptions struct {
	Since   time.Time // pages fetched at or after it; zero: all
	Warn    func(msg string)
	Context context.Context
}

// JSONL writes one PageLine per stored page to w, in fetch order. A page whose body
// does not decompress is written without text, title and links, with a warning.
// Invalid UTF-8 in a page becomes U+FFFD: every line is valid JSON.
func JSONL(st *store.Store, w io.Writer, o JSONLOptions) (Report, error) {
	if o.Context == nil {
		o.Context = context.Background()
	}
	var rep Report
	bw := bufio.NewWriterSize(w, 256<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	book := stories.NewBook() // in fetch order: a story's id is its first page's, known when that page is written
	err := st.Pages(o.Since, func(r store.PageRow, bodyErr error) error {
		if err := o.Context.Err(); err != nil {
			return err
		}
		if bodyErr != nil {
			rep.Warnings++
			if o.Warn != nil {
				o.Warn(fmt.Sprintf("%s: body left out: %v", r.Page.URL, bodyErr))
			}
		}
		line := pageLine(r.Page, r.URL, book)
		line.Node = r.Node
		for _, k := range r.Results {
			line.Results = append(line.Results, k.Site+":"+k.Keyword)
		}
		if err := enc.Encode(&line); err != nil {
			return err
		}
		rep.Pages++
		return nil
	})
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return rep, err
}

// pageLine builds the line of one page, grouping it into its story in book.
func pageLine(p store.Page, u store.URL, book *stories.Book) PageLine {
	final := p.FinalURL
	if final == "" {
		final = p.URL
	}
	l := PageLine{
		URL: p.URL, FinalURL: final, Status: p.Status, FetchedAt: p.FetchedAt.UTC().Format(time.RFC3339),
		ContentType: p.ContentType, Class: u.Class, Site: u.Site, Keyword: u.Keyword, Egress: p.Egress,
		Links: []string{}, Authors: []string{}, MetaFrom: map[string]string{}, Results: []string{},
	}
	if p.SimHash != 0 {
		l.SimHash = fmt.Sprintf("%016x", p.SimHash)
	}
	if len(p.Body) == 0 {
		return l
	}
	// One tokenizer pass gives the links, the main text and the title
	// (engine/page, as the crawl read the page). The main text is the one revisit
	// compares (M2): the same extractor, the same decoding. Invalid UTF-8 (a page
	// that lies about its charset) becomes U+FFFD, one per broken sequence: every
	// line is valid JSON in UTF-8.
	links, parsed := page.Read(p.Body, p.ContentType, "")
	title, ok := parsed.DocTitle()
	if !ok { // no tree (not HTML, or no usable text): the title is read apart
		title = pageTitle(p.Body, p.ContentType)
	}
	l.Title = strings.ToValidUTF8(title, "\uFFFD")
	if feedOrSitemap(p.Body) {
		// Discovery's document, stored as fetched: no article. Read as HTML, its
		// markup was its "text", its channel title a headline and its build date a
		// publication date, and a site's sitemaps, alike in their markup, one story.
		return l
	}
	if text, ok := parsed.PageText(); ok {
		l.Text = strings.ToValidUTF8(text, "\uFFFD")
	}
	l.Links = resolveLinks(append(links.Links, links.Nofollow...), links.Base, final)
	if _, main, ok := parsed.Sign(p.Body, p.ContentType); ok && p.Status/100 == 2 {
		if fp, ok := stories.Fingerprint(main); ok {
			l.Story, _ = book.Add(stories.Page{URL: p.URL, SimHash: fp, Fetched: p.FetchedAt})
		}
	}
	l.setMeta(parsed.Meta(final, p.FetchedAt))
	return l
}

// pageTitle is the text of the first <title>, decoded from the page's charset
// (Content-Type, <meta charset>, or sniffed: the WHATWG encoding rules), spaces
// collapsed.
func pageTitle(body []byte, contentType string) string {
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		r = bytes.NewReader(body)
	}
	z := html.NewTokenizer(r)
	in := false
	var b strings.Builder
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.Join(strings.Fields(b.String()), " ")
		case html.StartTagToken:
			if name, _ := z.TagName(); atom.Lookup(name) == atom.Title {
				in = true
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); in && atom.Lookup(name) == atom.Title {
				return strings.Join(strings.Fields(b.String()), " ")
			}
		case html.TextToken:
			if in {
				b.Write(z.Text())
			}
		}
	}
}

// resolveLinks resolves a page's raw links against its final URL (and <base href>),
// as the crawl did when it queued them.
func resolveLinks(raw []string, baseHref, pageURL string) []string {
	base, err := frontier.ParseBase(pageURL)
	if err != nil {
		return []string{}
	}
	if baseHref != "" {
		if abs, err := base.Resolve(baseHref); err == nil {
			if b, err := frontier.ParseBase(abs); err == nil {
				base = b
			}
		}
	}
	out := []string{}
	seen := map[string]bool{}
	for _, r := range raw {
		n, err := base.Resolve(r)
		if err != nil || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	return out
}

// setMeta fills the line's metadata fields.
func (l *PageLine) setMeta(m page.Metadata) {
	valid := func(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
	set := func(key string, dst *string, val string, from page.Source) {
		if val != "" {
			*dst = valid(val)
			l.MetaFrom[key] = string(from)
		}
	}
	set("published", &l.Published, m.Published.String(), m.Published.From)
	set("modified", &l.Modified, m.Modified.String(), m.Modified.From)
	set("headline", &l.Headline, m.Headline.Value, m.Headline.From)
	set("language", &l.Language, m.Language.Value, m.Language.From)
	set("canonical", &l.Canonical, m.Canonical.Value, m.Canonical.From)
	for _, a := range m.Authors {
		l.Authors = append(l.Authors, valid(a))
	}
	if len(m.Authors) > 0 {
		l.MetaFrom["authors"] = string(m.AuthorsFrom)
	}
}

// feedRoots are the root elements of the feeds and sitemaps discovery reads.
var feedRoots = [...][]byte{[]byte("<rss"), []byte("<feed"), []byte("<urlset"), []byte("<sitemapindex"), []byte("<rdf:RDF")}

// feedOrSitemap says whether body is a feed or a sitemap, by its start, whatever its
// Content-Type (servers label them text/html and text/plain): an XML declaration,
// comments or a stylesheet instruction, then one of their roots (in the first 8 KiB:
// a comment ahead of the root can be long); or a text sitemap, lines of URLs alone. A
// gzip one has no text an article could be read from anyway, and an XHTML page,
// <html> at its root, is a page.
func feedOrSitemap(body []byte) bool {
	head := body[:min(len(body), 8<<10)]
	head = bytes.TrimLeft(head, " \t\r\n\ufeff")
	if urlLines(head) {
		return true
	}
	for bytes.HasPrefix(head, []byte("<?")) || bytes.HasPrefix(head, []byte("<!--")) || bytes.HasPrefix(head, []byte("<!DOCTYPE")) {
		end := []byte(">")
		if bytes.HasPrefix(head, []byte("<!--")) {
			end = []byte("-->")
		} else if gt, sub := bytes.IndexByte(head, '>'), bytes.IndexByte(head, '['); sub >= 0 && sub < gt {
			end = []byte("]>") // a DOCTYPE's internal subset: <!DOCTYPE rss [<!ENTITY …>]>
		}
		i := bytes.Index(head, end)
		if i < 0 {
			return false
		}
		head = bytes.TrimLeft(head[i+len(end):], " \t\r\n")
	}
	for _, r := range feedRoots {
		if bytes.HasPrefix(head, r) && len(head) > len(r) && (head[len(r)] == ' ' || head[len(r)] == '>' || head[len(r)] == '\n' || head[len(r)] == '\t' || head[len(r)] == '\r') {
			return true
		}
	}
	return false
}

// urlLines says whether head starts as a text sitemap: its first lines (up to five,
// at least one) each an http(s) URL and nothing else.
func urlLines(head []byte) bool {
	n := 0
	for line := range bytes.Lines(head) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if !bytes.HasPrefix(line, []byte("http://")) && !bytes.HasPrefix(line, []byte("https://")) ||
			bytes.ContainsAny(line, " \t<>\"") {
			return false
		}
		if n++; n == 5 {
			break
		}
	}
	return n > 0
}
