package export

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nlnwa/gowarc/v3"

	"github.com/crawlconsole/crawlconsole/store"
)

// DefaultMaxSize is the size at which a WARC file is closed and the next one begun:
// the 1 GB the WARC 1.1 standard's annex C recommends.
const DefaultMaxSize = 1_000_000_000

// Software names the exporter in each file's warcinfo record.
var Software = "crawlconsole"

// WARCOptions says what to export and where.
type WARCOptions struct {
	// Dir receives the files (created if missing); empty means write one gzip
	// stream of records to Stdout.
	Dir    string
	Stdout io.Writer
	// Since exports only the exchanges fetched at or after it (incremental exports);
	// zero exports everything.
	Since time.Time
	// MaxSize rotates files at about this many bytes on disk (DefaultMaxSize if 0).
	MaxSize int64
	// Prefix starts every file name; "crawlconsole" if empty.
	Prefix string
	// Warn is told about each capture skipped or exported incompletely (a damaged
	// body, a record the library refused); nil ignores them. Warnings are counted
	// in the Report all the same.
	Warn func(msg string)
	// Context stops the export early (a signal); the files written so far are
	// complete and closed.
	Context context.Context
}

// Report sums up one export.
type Report struct {
	Records   int `json:"records"`   // WARC records written, warcinfo included
	Responses int `json:"responses"` // response records
	Requests  int `json:"requests"`  // request records
	Revisits  int `json:"revisits"`  // revisit records (unchanged refetches, 304s, duplicates)
	// Conversions are the conversion records of rendered pages: the DOM a
	// headless browser built of a page, referring to the page's response.
	Conversions int `json:"conversions,omitempty"`
	// Duplicates are the revisit records of a response whose payload another URL's
	// response already holds (the same article at two addresses): identical-payload-digest,
	// referring to the first; BytesSaved is the payload bytes they did not repeat.
	Duplicates int      `json:"duplicates"`
	BytesSaved int64    `json:"bytes_saved"`
	Pages      int      `json:"pages"`    // JSONL objects, or WARC exchanges exported
	Rebuilt    int      `json:"rebuilt"`  // pages stored before captures existed, rebuilt from the page row
	Warnings   int      `json:"warnings"` // captures or pages skipped or exported incompletely
	Files      []string `json:"files"`    // paths of the files written, in order
}

// revisit profiles (WARC 1.1 §6.7.2, §6.7.3).
const (
	profileDigest      = gowarc.ProfileIdenticalPayloadDigestV1_1
	profileNotModified = gowarc.ProfileServerNotModifiedV1_1
)

// decodedField names, in a response record's WARC header, the content codings the
// crawler removed from the body it kept (the HTTP header lines that described the
// coded body are left out of the block; see README "Data out"). Not a WARC- field:
// the standard reserves that prefix.
const decodedField = "Crawlconsole-Decoded-Content-Encoding"

// recordOptions are the options every record is built with: SHA-1 digests in base32
// (what CDX indexes and pywb compare), computed by the library when missing.
func recordOptions() []gowarc.WarcRecordOption {
	return []gowarc.WarcRecordOption{
		gowarc.WithVersion(gowarc.V1_1),
		gowarc.WithDefaultDigestAlgorithm("sha1"),
		gowarc.WithAddMissingDigest(true),
		gowarc.WithAddMissingRecordId(true),
	}
}

// WARC writes the store's captures (and the pages stored before captures existed)
// as WARC 1.1 records, gzip per record: for each exchange a request record and a
// response record linked by WARC-Concurrent-To, or a revisit record when the
// response repeats a payload already exported for that URL (identical-payload-digest)
// or was a 304 (server-not-modified).
func WARC(st *store.Store, o WARCOptions) (Report, error) {
	if o.Context == nil {
		o.Context = context.Background()
	}
	if o.MaxSize <= 0 {
		o.MaxSize = DefaultMaxSize
	}
	if o.Prefix == "" {
		o.Prefix = "crawlconsole"
	}
	x := &warcExport{st: st, o: o, ids: map[int64]exported{}}
	var err error
	if o.Dir == "" {
		x.sink, err = newStreamSink(o.Stdout, x.warcinfo)
	} else {
		x.sink, err = newFileSink(o, x.warcinfo)
	}
	if err != nil {
		return x.rep, err
	}
	err = x.run()
	files, cerr := x.sink.close(err != nil)
	x.rep.Files = files
	x.rep.Records += x.sink.infos()
	return x.rep, errors.Join(err, cerr)
}

// exported is what a revisit record needs of the response it refers to.
type exported struct {
	id   string // WARC-Record-ID
	uri  string
	date time.Time
}

type warcExport struct {
	st   *store.Store
	o    WARCOptions
	sink recordSink
	rep  Report
	// ids maps capture ids exported in this run to their record, for WARC-Refers-To.
	ids map[int64]exported
	// lastBody maps a URL to the newest capture with a 2xx body exported in this
	// run: a 304 refers to it.
	lastBody map[string]exported
	// byFetch maps a URL and fetch time to the response (or revisit) record of that
	// fetch exported in this run: a rendered page's conversion record refers to it.
	byFetch map[fetchKey]exported
	// waiting holds the rendered DOMs whose response is not exported yet (the store
	// may keep a DOM before its page's capture): each follows its response.
	waiting map[fetchKey][]store.Capture
	// byDigest maps a payload digest to the first 2xx response exported in this run
	// that holds it: a response of another URL with the same payload becomes a
	// revisit of it.
	byDigest map[string]exported
}

func (x *warcExport) warn(format string, a ...any) {
	x.rep.Warnings++
	if x.o.Warn != nil {
		x.o.Warn(fmt.Sprintf(format, a...))
	}
}

func (x *warcExport) run() error {
	x.lastBody, x.byDigest = map[string]exported{}, map[string]exported{}
	x.byFetch, x.waiting = map[fetchKey]exported{}, map[fetchKey][]store.Capture{}
	err := x.st.Captures(x.o.Since, func(c store.Capture, bodyErr error) error {
		if err := x.o.Context.Err(); err != nil {
			return err
		}
		if bodyErr != nil {
			x.warn("skipped %s fetched %s: %v", c.URL, c.FetchedAt.UTC().Format(time.RFC3339), bodyErr)
			return nil
		}
		if c.Kind == store.CaptureRendered {
			return x.rendered(c)
		}
		return x.capture(c)
	})
	if err != nil {
		return err
	}
	if err := x.orphanRenders(); err != nil {
		return err
	}
	return x.st.UncapturedPages(x.o.Since, func(p store.Page, bodyErr error) error {
		if err := x.o.Context.Err(); err != nil {
			return err
		}
		if bodyErr != nil {
			x.warn("skipped %s: %v", p.URL, bodyErr)
			return nil
		}
		return x.rebuilt(p)
	})
}

// capture writes one exchange: request + response, or request + revisit.
func (x *warcExport) capture(c store.Capture) error {
	var recs []gowarc.WarcRecord
	if c.RequestHead != "" {
		req, err := x.requestRecord(c)
		if err != nil {
			x.warn("request record of %s left out: %v", c.URL, err)
		} else {
			recs = append(recs, req)
		}
	}
	var main gowarc.WarcRecord
	var err error
	dup, isDup := x.duplicateOf(c)
	switch {
	case c.Status == http.StatusNotModified:
		main, err = x.revisitRecord(c, profileNotModified, x.notModifiedRef(c))
	case c.RefersTo != 0:
		main, err = x.revisitRecord(c, profileDigest, x.digestRef(c))
	case isDup:
		main, err = x.revisitRecord(c, profileDigest, dup)
	default:
		main, err = x.responseRecord(c)
	}
	if err != nil {
		for _, r := range recs {
			r.Close()
		}
		x.warn("skipped %s fetched %s: %v", c.URL, c.FetchedAt.UTC().Format(time.RFC3339), err)
		return nil
	}
	recs = append([]gowarc.WarcRecord{main}, recs...) // the response first, as wget and warcprox write them
	if err := x.sink.write(recs...); err != nil {
		return err
	}
	x.rep.Pages++
	x.rep.Records += len(recs)
	if len(recs) > 1 {
		x.rep.Requests++
	}
	k := fetchKey{c.URL, c.FetchedAt.UnixNano()}
	x.byFetch[k] = exported{id: main.WarcHeader().GetId(gowarc.WarcRecordID), uri: c.URL, date: c.FetchedAt}
	if err := x.flushRenders(k); err != nil {
		return err
	}
	if main.Type() == gowarc.Revisit {
		x.rep.Revisits++
		if isDup {
			x.rep.Duplicates++
			x.rep.BytesSaved += int64(len(c.Body))
		}
		return nil
	}
	x.rep.Responses++
	e := exported{id: main.WarcHeader().GetId(gowarc.WarcRecordID), uri: c.URL, date: c.FetchedAt}
	x.ids[c.ID] = e
	if c.Status/100 == 2 {
		x.lastBody[c.URL] = e
		if dedupable(c) {
			x.byDigest[c.PayloadDigest] = e
		}
	}
	return nil
}

// duplicateOf finds the response of another URL exported in this run whose payload
// is c's, byte for byte (the same SHA-1): c is then written as a revisit of it. An
// empty or cut body is no duplicate of anything.
func (x *warcExport) duplicateOf(c store.Capture) (exported, bool) {
	if c.Status/100 != 2 || c.RefersTo != 0 || !dedupable(c) {
		return exported{}, false
	}
	e, ok := x.byDigest[c.PayloadDigest]
	return e, ok && e.uri != c.URL
}

// dedupable says a capture's payload can stand for, or be stood for by, another
// URL's: a whole, non-empty body with its digest.
func dedupable(c store.Capture) bool {
	return len(c.Body) > 0 && c.Truncated == "" && c.PayloadDigest != ""
}

// requestRecord is the request as sent: its head, no body (crawlconsole only GETs).
func (x *warcExport) requestRecord(c store.Capture) (gowarc.WarcRecord, error) {
	rb := gowarc.NewRecordBuilder(gowarc.Request, recordOptions()...)
	x.common(rb, c.URL, c.FetchedAt, c.RemoteIP)
	rb.AddWarcHeader(gowarc.ContentType, "application/http;msgtype=request")
	head := c.RequestHead
	if !strings.HasSuffix(head, "\r\n") {
		head += "\r\n"
	}
	rb.WriteString(head + "\r\n")
	return build(rb)
}

// responseRecord is the response: status line, header fields, the body kept.
func (x *warcExport) responseRecord(c store.Capture) (gowarc.WarcRecord, error) {
	rb := gowarc.NewRecordBuilder(gowarc.Response, recordOptions()...)
	x.common(rb, c.URL, c.FetchedAt, c.RemoteIP)
	rb.AddWarcHeader(gowarc.ContentType, "application/http;msgtype=response")
	rb.AddWarcHeader(gowarc.WarcPayloadDigest, c.PayloadDigest)
	if c.Truncated != "" {
		rb.AddWarcHeader(gowarc.WarcTruncated, c.Truncated)
	}
	if c.Decoded != "" {
		rb.AddWarcHeader(decodedField, c.Decoded)
	}
	rb.WriteString(responseHead(c.StatusLine, c.Status, c.ResponseHead, c.Decoded, int64(len(c.Body)), c.Truncated != ""))
	rb.Write(c.Body)
	return build(rb)
}

// revisitRecord is a response whose payload is not repeated: its head only, pointing
// at the record that holds the payload (ref; zero when it is not known).
func (x *warcExport) revisitRecord(c store.Capture, profile string, ref exported) (gowarc.WarcRecord, error) {
	rb := gowarc.NewRecordBuilder(gowarc.Revisit, recordOptions()...)
	x.common(rb, c.URL, c.FetchedAt, c.RemoteIP)
	rb.AddWarcHeader(gowarc.ContentType, "application/http;msgtype=response")
	rb.AddWarcHeader(gowarc.WarcProfile, profile)
	if profile == profileDigest {
		rb.AddWarcHeader(gowarc.WarcPayloadDigest, c.PayloadDigest)
	}
	if ref.id != "" {
		rb.AddWarcHeader(gowarc.WarcRefersTo, "<"+ref.id+">") // GetId gave it without the brackets
	}
	if ref.uri != "" {
		rb.AddWarcHeader(gowarc.WarcRefersToTargetURI, ref.uri)
		rb.AddWarcHeaderTime(gowarc.WarcRefersToDate, ref.date)
	}
	if c.Decoded != "" {
		rb.AddWarcHeader(decodedField, c.Decoded)
	}
	rb.WriteString(responseHead(c.StatusLine, c.Status, c.ResponseHead, c.Decoded, c.Bytes, false))
	return build(rb)
}

// digestRef finds the record holding an unchanged refetch's payload: exported in
// this run, or (an incremental export) in an earlier one, named by URI and date.
func (x *warcExport) digestRef(c store.Capture) exported {
	if e, ok := x.ids[c.RefersTo]; ok {
		return e
	}
	if ref, err := x.st.Capture(c.RefersTo); err == nil {
		return exported{uri: ref.URL, date: ref.FetchedAt}
	}
	return exported{}
}

// notModifiedRef finds the copy a 304 confirms: the newest 2xx response of the URL
// exported before it in this run, or in an earlier one, or else the stored page (a
// page stored before captures existed, exported as a rebuilt record).
func (x *warcExport) notModifiedRef(c store.Capture) exported {
	if e, ok := x.lastBody[c.URL]; ok {
		return e
	}
	if p, err := x.st.LastBodyCapture(c.URL, c.ID); err == nil {
		return exported{uri: p.URL, date: p.FetchedAt}
	}
	if p, err := x.st.Page(c.URL); err == nil && p.FetchedAt.Before(c.FetchedAt) {
		return exported{uri: p.URL, date: p.FetchedAt}
	}
	return exported{}
}

// common sets the fields every record of an exchange has.
func (x *warcExport) common(rb gowarc.WarcRecordBuilder, uri string, at time.Time, ip string) {
	rb.AddWarcHeader(gowarc.WarcTargetURI, uri)
	rb.AddWarcHeaderTime(gowarc.WarcDate, at.UTC())
	if ip != "" {
		rb.AddWarcHeader(gowarc.WarcIPAddress, ip)
	}
}

// rebuilt writes a page stored before captures existed: a response record made of
// what the page row kept (status, content type, validators, body). The request and
// the other header fields were not kept, so there is no request record, and a
// Crawlconsole-Rebuilt field says the head is not the one received.
func (x *warcExport) rebuilt(p store.Page) error {
	rb := gowarc.NewRecordBuilder(gowarc.Response, recordOptions()...)
	x.common(rb, p.URL, p.FetchedAt, "")
	rb.AddWarcHeader(gowarc.ContentType, "application/http;msgtype=response")
	rb.AddWarcHeader("Crawlconsole-Rebuilt", "status line and headers rebuilt from the stored page")
	rb.AddWarcHeader(gowarc.WarcPayloadDigest, store.PayloadDigest(p.Body))
	h := http.Header{}
	if p.ContentType != "" {
		h.Set("Content-Type", p.ContentType)
	}
	if p.ETag != "" {
		h.Set("ETag", p.ETag)
	}
	if p.LastModified != "" {
		h.Set("Last-Modified", p.LastModified)
	}
	var hb bytes.Buffer
	h.Write(&hb)
	rb.WriteString(responseHead("", p.Status, hb.String(), "", int64(len(p.Body)), false))
	rb.Write(p.Body)
	rec, err := build(rb)
	if err != nil {
		x.warn("skipped %s: %v", p.URL, err)
		return nil
	}
	if err := x.sink.write(rec); err != nil {
		return err
	}
	x.rep.Records++
	x.rep.Responses++
	x.rep.Pages++
	x.rep.Rebuilt++
	return nil
}

// responseHead is the status line and header block of a response record. The body
// kept is the decoded one: when the fetcher undid a content coding, the lines that
// described the coded body (Content-Encoding, Content-Length) would lie about the
// payload that follows, so they are left out and Content-Length gives the decoded
// length (the WARC header's decodedField names the coding removed).
func responseHead(statusLine string, status int, head, decoded string, bodyLen int64, truncated bool) string {
	if statusLine == "" {
		statusLine = "HTTP/1.1 " + strconv.Itoa(status) + " " + http.StatusText(status)
	}
	var b strings.Builder
	b.WriteString(statusLine + "\r\n")
	for line := range strings.SplitSeq(head, "\r\n") {
		if line == "" {
			continue
		}
		name, _, _ := strings.Cut(line, ":")
		if decoded != "" && (strings.EqualFold(name, "Content-Encoding") || strings.EqualFold(name, "Content-Length")) {
			continue
		}
		b.WriteString(line + "\r\n")
	}
	if decoded != "" && !truncated {
		b.WriteString("Content-Length: " + strconv.FormatInt(bodyLen, 10) + "\r\n")
	}
	b.WriteString("\r\n")
	return b.String()
}

// build finishes a record; a record the library finds invalid is an error.
func build(rb gowarc.WarcRecordBuilder) (gowarc.WarcRecord, error) {
	rec, _, err := rb.Build()
	return rec, err
}

// warcinfo fills each file's first record: who wrote it and how (WARC 1.1 §6.2).
func (x *warcExport) warcinfo(rb gowarc.WarcRecordBuilder) error {
	since := "everything"
	if !x.o.Since.IsZero() {
		since = x.o.Since.UTC().Format(time.RFC3339)
	}
	host, _ := os.Hostname()
	fields := []string{
		"software: " + Software,
		"format: WARC File Format 1.1",
		"conformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/",
		"description: export of crawl database " + filepath.Base(x.st.Path()) + ", exchanges since " + since,
		"hostname: " + host,
		"http-header-user-agent: as sent, in each request record",
		"robots: obey",
	}
	_, err := rb.WriteString(strings.Join(fields, "\r\n") + "\r\n")
	return err
}
