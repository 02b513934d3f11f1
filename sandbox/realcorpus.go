package sandbox

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
)

// The real-world discovery corpus: feeds and sitemaps captured from real sites, kept
// byte for byte in a directory (engine/discover/testdata/realworld in the repository)
// with a MANIFEST.tsv that says, per document, its kind, its real encoding, the URL it
// was published at, the Content-Type to serve it with and where it came from; and,
// under expected/, the page URLs an independent parser reads from each. RealWeb serves
// it on loopback. It is read from a path, never embedded: a binary does not carry it.

// RealDoc is one document of the real-world corpus: one row of its MANIFEST.tsv.
type RealDoc struct {
	File        string // path under the corpus directory (feeds/x.xml, sitemaps/y.xml.gz)
	Kind        string // rss20, atom10, sitemap, sitemap_index, text_sitemap, ...
	Encoding    string // its real encoding, lower case
	URL         string // where it was published on its real site
	ContentType string // the Content-Type it is served with
	Source      string // owner/repo@commit:path
	License     string // SPDX id of the source's licence
}

// IsFeed says whether the document is a feed (linked from its host's home page) rather
// than a sitemap (named by its host's robots.txt).
func (d RealDoc) IsFeed() bool {
	return strings.HasPrefix(d.Kind, "rss") || strings.HasPrefix(d.Kind, "atom") || d.Kind == "xhtml_feed"
}

// IsIndex says whether the document is a sitemap index: what it lists are sitemaps
// (expected/<file>.children), not pages.
func (d RealDoc) IsIndex() bool { return d.Kind == "sitemap_index" }

// realManifestHeader is MANIFEST.tsv's first line.
var realManifestHeader = []string{"file", "kind", "encoding", "url", "content_type", "source", "license"}

// LoadRealCorpus reads dir/MANIFEST.tsv. Every row must name a file that exists and
// an absolute http(s) URL, each URL once.
func LoadRealCorpus(dir string) ([]RealDoc, error) {
	f, err := os.Open(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		return nil, fmt.Errorf("real-world corpus: %w (give the corpus directory, e.g. engine/discover/testdata/realworld)", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var docs []RealDoc
	seen := map[string]string{}
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		cols := strings.Split(text, "\t")
		if line == 1 {
			if strings.Join(cols, "\t") != strings.Join(realManifestHeader, "\t") {
				return nil, fmt.Errorf("%s/MANIFEST.tsv: header is %q, want %q", dir, text, strings.Join(realManifestHeader, "\t"))
			}
			continue
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		if len(cols) != len(realManifestHeader) {
			return nil, fmt.Errorf("%s/MANIFEST.tsv line %d: %d columns, want %d (tab-separated)", dir, line, len(cols), len(realManifestHeader))
		}
		d := RealDoc{File: cols[0], Kind: cols[1], Encoding: strings.ToLower(cols[2]), URL: cols[3],
			ContentType: cols[4], Source: cols[5], License: cols[6]}
		u, err := url.Parse(d.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
			return nil, fmt.Errorf("%s/MANIFEST.tsv line %d: url %q is not an absolute http(s) URL", dir, line, d.URL)
		}
		key := realKey(u)
		if other, dup := seen[key]; dup {
			return nil, fmt.Errorf("%s/MANIFEST.tsv line %d: %s and %s are served at the same loopback URL (only the scheme or port differs)", dir, line, d.File, other)
		}
		seen[key] = d.File
		if _, err := os.Stat(filepath.Join(dir, d.File)); err != nil {
			return nil, fmt.Errorf("%s/MANIFEST.tsv line %d: %w", dir, line, err)
		}
		docs = append(docs, d)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s/MANIFEST.tsv: %w", dir, err)
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("%s/MANIFEST.tsv lists no document", dir)
	}
	return docs, nil
}

// RealExpected returns what an independent parser reads from d: the page URLs it
// lists (expected/<file>.urls), or for a sitemap index the sitemaps it lists
// (expected/<file>.children), as published (real hosts). A missing file is an error.
func RealExpected(dir string, d RealDoc) ([]string, error) {
	ext := ".urls"
	if d.IsIndex() {
		ext = ".children"
	}
	b, err := os.ReadFile(filepath.Join(dir, "expected", d.File+ext))
	if errors.Is(err, os.ErrNotExist) {
		// Flat layout: expected/<base name>.
		b, err = os.ReadFile(filepath.Join(dir, "expected", filepath.Base(d.File)+ext))
	}
	if err != nil {
		return nil, fmt.Errorf("real-world corpus: expected URLs of %s: %w", d.File, err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out, nil
}

// realKey is where a real URL is served on loopback, without the port: host (lower
// case), path and query. Scheme, port, user info and fragment are dropped.
func realKey(u *url.URL) string {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return strings.ToLower(u.Hostname()) + p
}

// mapRealURL maps a real http(s) URL to the loopback URL at port: http, same host,
// path and query. ok is false for anything else. An absolute URL inside the path or
// query (a redirector's /redir/…/*https://www1.site/article) is pointed at port too,
// as rewriteHosts does to it in a served document, so that a listed URL maps to the
// link the document is served with.
func mapRealURL(raw string, port int) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return "", false
	}
	k := realKey(u)
	i := strings.IndexByte(k, '/')
	return "http://" + net.JoinHostPort(k[:i], strconv.Itoa(port)) + string(rewriteHosts([]byte(k[i:]), port)), true
}

// realAbsURL is an absolute http(s) URL's scheme and authority in a document: the
// authority runs to the first byte that cannot be in one. The stop set is ASCII below
// 0x40 (and controls), so in GBK, Big5, Shift_JIS or EUC text the cut never falls
// between a character's lead and trail bytes; ESC stops it in ISO-2022 text.
var realAbsURL = regexp.MustCompile(`(?i)\bhttps?://[^\x00-\x20/?#"'<>]+`)

// realIdentifiers are the places where a URL names something rather than links to
// it, left as they are: namespace declarations (an Atom feed whose namespace were
// rewritten would be no Atom feed), schema locations and the DOCTYPE.
var realIdentifiers = regexp.MustCompile(`(?is)\bxmlns(?::[\w.-]+)?\s*=\s*(?:"[^"]*"|'[^']*')|\bschemaLocation\s*=\s*(?:"[^"]*"|'[^']*')|<!DOCTYPE[^>\[]*`)

// rewriteHosts points every absolute http(s) URL in body at the loopback port,
// namespaces and the like aside (realIdentifiers): https becomes http, the host
// stays, its port becomes port. Only scheme and authority bytes change; the rest of
// the document is left as it was.
func rewriteHosts(body []byte, port int) []byte {
	p := []byte(":" + strconv.Itoa(port))
	rewrite := func(b []byte) []byte {
		return realAbsURL.ReplaceAllFunc(b, func(m []byte) []byte {
			auth := m[bytes.Index(m, []byte("://"))+3:]
			if i := bytes.LastIndexByte(auth, '@'); i >= 0 {
				auth = auth[i+1:] // user info: dropped
			}
			host := auth
			if i := bytes.LastIndexByte(host, ':'); i >= 0 && !bytes.Contains(host[i:], []byte("]")) {
				host = host[:i] // its own port: replaced
			}
			out := make([]byte, 0, len("http://")+len(host)+len(p))
			out = append(out, "http://"...)
			out = append(out, host...)
			return append(out, p...)
		})
	}
	var out []byte
	last := 0
	for _, span := range realIdentifiers.FindAllIndex(body, -1) {
		out = append(out, rewrite(body[last:span[0]])...)
		out = append(out, body[span[0]:span[1]]...)
		last = span[1]
	}
	return append(out, rewrite(body[last:])...)
}

// realWideEncoding returns the encoding of a UTF-16 or UTF-32 document (by its BOM
// or its manifest label), whose ASCII is not ASCII bytes; nil for the others. A BOM
// is kept as a character (U+FEFF), so that it is written back as it was.
func realWideEncoding(label string, body []byte) encoding.Encoding {
	switch {
	case bytes.HasPrefix(body, []byte{0xFF, 0xFE, 0, 0}) || label == "utf-32le":
		return utf32.UTF32(utf32.LittleEndian, utf32.IgnoreBOM)
	case bytes.HasPrefix(body, []byte{0, 0, 0xFE, 0xFF}) || label == "utf-32" || label == "utf-32be":
		return utf32.UTF32(utf32.BigEndian, utf32.IgnoreBOM)
	case bytes.HasPrefix(body, []byte{0xFF, 0xFE}) || label == "utf-16le":
		return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)
	case bytes.HasPrefix(body, []byte{0xFE, 0xFF}) || label == "utf-16" || label == "utf-16be":
		return unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)
	}
	return nil
}

// realBody is d's file as served at port: hosts rewritten (rewriteHosts), inside
// the gzip for a .gz file (recompressed) and in the document's own UTF-16 or UTF-32.
func realBody(dir string, d RealDoc, port int) ([]byte, error) {
	raw, err := os.ReadFile(filepath.Join(dir, d.File))
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(raw, []byte{0x1f, 0x8b}) {
		return rewriteEncoded(raw, d.Encoding, port), nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.File, err)
	}
	plain, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.File, err)
	}
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write(rewriteEncoded(plain, d.Encoding, port)) //nolint:errcheck // a bytes.Buffer does not fail
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// rewriteEncoded is rewriteHosts on a document in its own encoding: a UTF-16 or
// UTF-32 one is decoded, rewritten and encoded again; the others are ASCII-compatible
// and rewritten as bytes.
func rewriteEncoded(body []byte, label string, port int) []byte {
	enc := realWideEncoding(label, body)
	if enc == nil {
		return rewriteHosts(body, port)
	}
	text, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return body
	}
	out, err := enc.NewEncoder().Bytes(rewriteHosts(text, port))
	if err != nil {
		return body
	}
	return out
}
