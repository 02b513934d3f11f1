package store

import (
	"context"
	"crypto/sha1"
	"database/sql"
	"encoding/base32"
	"errors"
	"fmt"
	"time"

	"github.com/crawlconsole/crawlconsole/store/internal/bodycodec"
)

// Capture is one HTTP exchange as it crossed the wire: a WARC request record and a
// response (or revisit) record in the export. Captures are written for every
// response the crawl got (pages, redirects, 4xx, 304) and never rewritten.
type Capture struct {
	ID          int64 // assigned by the store; export order
	URL         string
	FetchedAt   time.Time
	Status      int
	StatusLine  string // "HTTP/1.1 200 OK"
	RequestHead string // request line and header fields as sent, CRLF-terminated, redacted
	// ResponseHead is the header fields as received, CRLF-terminated, redacted,
	// before the fetcher undid the content codings named in Decoded.
	ResponseHead string
	RemoteIP     string
	Decoded      string // content codings the fetcher undid: Body is the decoded body
	Truncated    string // WARC-Truncated reason ("length") when Body is not the whole body
	Body         []byte // as decoded; nil when RefersTo is set
	Bytes        int64  // len(Body) as stored (also for a revisit: the referred body's length)
	// PayloadDigest is "sha1:" and the base32 SHA-1 of Body (WARC-Payload-Digest);
	// the store computes it.
	PayloadDigest string
	// RefersTo is the ID of an earlier capture of the same URL holding the same body
	// (a WARC revisit, identical-payload-digest); 0 when this capture holds its body.
	RefersTo int64
	Lane     int
	Egress   string
	Node     string
	// Kind is what the capture is: "" an HTTP exchange, CaptureRendered the DOM a
	// browser built of the page at URL (FetchedAt is its response's).
	Kind string
	// Refetch says the URL may have been captured before (a revisit): only then does
	// the writer look for an earlier copy of the body to refer to, a lookup a first
	// fetch, the common case, is spared.
	Refetch bool
}

// CaptureRendered is the Kind of a capture that holds the DOM a headless browser
// built of a page (the page's rendered HTML), not an exchange.
const CaptureRendered = "rendered"

// PayloadDigest is the WARC-Payload-Digest of body: "sha1:" and its base32 SHA-1, the
// form Heritrix, wget and the CDX indexes use.
func PayloadDigest(body []byte) string {
	sum := sha1.Sum(body)
	// Encoded behind the prefix in one buffer: one allocation, not two.
	const prefix = "sha1:"
	var b [len(prefix) + 32]byte // 32: base32 of SHA-1's 20 bytes
	copy(b[:], prefix)
	base32.StdEncoding.Encode(b[len(prefix):], sum[:])
	return string(b[:])
}

// SaveCapture queues storing one HTTP exchange. The body is hashed and compressed on
// the caller's goroutine; the writer stores it only when no earlier capture of the
// URL holds a body with the same digest (RefersTo points there instead). A page's
// own exchange goes with it instead (Page.Capture), sharing the compressed body.
func (s *Store) SaveCapture(c Capture) {
	body, codec := prepareCapture(&c, nil, 0)
	s.submit(&writeOp{what: "save capture", key: c.URL, apply: func(w *writer) (func(), error) {
		return nil, w.insertCapture(&c, body, codec, false, 0)
	}})
}

// prepareCapture digests c's body and returns it compressed: compressed (with its
// codec) when the caller already has it, else compressed here. c.Body is dropped.
func prepareCapture(c *Capture, compressed []byte, codec int) ([]byte, int) {
	c.PayloadDigest = PayloadDigest(c.Body)
	c.Bytes = int64(len(c.Body))
	if compressed == nil && len(c.Body) > 0 {
		compressed, codec = bodycodec.Compress(c.Body)
	}
	c.Body = nil
	return compressed, codec
}

// insertCapture writes a prepared capture inside the writer's transaction. inPage
// says the page row of the URL holds this very body: it is not written twice. seq
// is the row id of the capture's URL when the caller has it, else 0: it is looked
// up, and stays 0 (NULL) for a URL the store has no row for.
func (w *writer) insertCapture(c *Capture, body []byte, codec int, inPage bool, seq int64) error {
	if seq == 0 {
		var err error
		if seq, _, _, err = w.findURL(c.URL); err != nil {
			return err
		}
	}
	var ref int64
	var found bool
	if c.Bytes > 0 && c.Refetch {
		var err error
		if ref, found, err = w.queryInt64(w.st.captureRef, c.URL, c.PayloadDigest, seq); err != nil {
			return err
		}
	}
	var stored any = body
	var refersTo any // NULL: this capture holds its body
	if found || inPage {
		stored, codec = nil, bodycodec.Raw
	}
	if found {
		refersTo = ref
	}
	var urlRow any // NULL: the store has no row for the URL
	if seq != 0 {
		urlRow = seq
	}
	return w.write(w.st.insertCapture, c.URL, nanos(c.FetchedAt), c.Status, c.StatusLine,
		c.RequestHead, c.ResponseHead, c.RemoteIP, c.Decoded, c.Truncated, c.PayloadDigest, c.Bytes,
		codec, stored, refersTo, c.Lane, c.Egress, c.Node, inPage && !found, c.Kind, urlRow)
}

const captureColumns = `c.id, c.url, c.fetched_at, c.status, c.status_line, c.request_head, c.response_head,
	c.remote_ip, c.decoded, c.truncated, c.payload_digest, c.bytes,
	CASE WHEN c.in_page = 1 THEN COALESCE(p.body_codec, 0) ELSE c.body_codec END,
	CASE WHEN c.in_page = 1 THEN p.body ELSE c.body END, c.refers_to, c.lane, c.egress, c.node, c.kind`

// Captures calls fn for each capture fetched at or after since (zero: all), in ID
// order, bodies decompressed. A capture whose body does not decompress (a damaged
// file) comes with a nil Body and bodyErr set; fn decides what to do with it.
// fn returning an error stops the walk with that error.
func (s *Store) Captures(since time.Time, fn func(c Capture, bodyErr error) error) error {
	ctx := context.Background()
	// Page by id so that no read transaction stays open for the whole export (a
	// running crawl's WAL could not be checkpointed behind it).
	const pageSize = 256
	var after int64
	for {
		// A capture sharing its page's body (in_page) reads it from pages.
		rows, err := s.rdb.QueryContext(ctx, `SELECT `+captureColumns+` FROM captures c
			LEFT JOIN urls u ON c.in_page = 1 AND u.url = c.url LEFT JOIN pages p ON p.id = u.page
			WHERE c.id > ? AND c.fetched_at >= ? ORDER BY c.id LIMIT ?`, after, nanos(since), pageSize)
		if err != nil {
			return s.readErr(err)
		}
		type row struct {
			c      Capture
			codec  int
			stored []byte
		}
		var batch []row
		for rows.Next() {
			var r row
			var fetched int64
			var ref sql.NullInt64
			if err := rows.Scan(&r.c.ID, &r.c.URL, &fetched, &r.c.Status, &r.c.StatusLine, &r.c.RequestHead,
				&r.c.ResponseHead, &r.c.RemoteIP, &r.c.Decoded, &r.c.Truncated, &r.c.PayloadDigest, &r.c.Bytes,
				&r.codec, &r.stored, &ref, &r.c.Lane, &r.c.Egress, &r.c.Node, &r.c.Kind); err != nil {
				rows.Close()
				return s.readErr(err)
			}
			r.c.FetchedAt, r.c.RefersTo = fromNanos(fetched), ref.Int64
			batch = append(batch, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return s.readErr(err)
		}
		for _, r := range batch {
			var bodyErr error
			if r.c.RefersTo == 0 {
				if r.c.Body, bodyErr = bodycodec.Decompress(r.stored, r.codec, r.c.Bytes); bodyErr != nil {
					r.c.Body = nil
					bodyErr = fmt.Errorf("capture %d of %s: body: %w", r.c.ID, r.c.URL, bodyErr)
				}
			}
			if err := fn(r.c, bodyErr); err != nil {
				return err
			}
			after = r.c.ID
		}
		if len(batch) < pageSize {
			return nil
		}
	}
}

// Capture returns one capture by ID without its body (a revisit's referent), or
// ErrNotFound.
func (s *Store) Capture(id int64) (Capture, error) {
	var c Capture
	var fetched int64
	err := s.rdb.QueryRowContext(context.Background(), `SELECT id, url, fetched_at, status, payload_digest, bytes
		FROM captures WHERE id = ?`, id).Scan(&c.ID, &c.URL, &fetched, &c.Status, &c.PayloadDigest, &c.Bytes)
	c.FetchedAt = fromNanos(fetched)
	return c, s.readErr(err)
}

// capturesOf selects the captures of the URL bound as ?1: those under its row's seq
// and those under its text without one (a URL the store had no row for when they
// were stored, and every capture stored before migration 17).
const capturesOf = `(seq = (SELECT seq FROM urls WHERE url = ?1) OR (seq IS NULL AND url = ?1))`

// LatestCapture returns the newest exchange captured of url without its body, or
// ErrNotFound.
func (s *Store) LatestCapture(url string) (Capture, error) {
	var c Capture
	var fetched int64
	var ref sql.NullInt64
	err := s.rdb.QueryRowContext(context.Background(), `SELECT id, url, fetched_at, status, status_line,
		request_head, response_head, remote_ip, decoded, truncated, payload_digest, bytes, refers_to, lane, egress, node
		FROM captures WHERE `+capturesOf+` AND kind = '' ORDER BY id DESC LIMIT 1`, url).Scan(&c.ID, &c.URL, &fetched, &c.Status,
		&c.StatusLine, &c.RequestHead, &c.ResponseHead, &c.RemoteIP, &c.Decoded, &c.Truncated, &c.PayloadDigest,
		&c.Bytes, &ref, &c.Lane, &c.Egress, &c.Node)
	c.FetchedAt, c.RefersTo = fromNanos(fetched), ref.Int64
	return c, s.readErr(err)
}

// UncapturedPages calls fn for each stored page fetched at or after since whose body
// no 2xx capture holds: pages a crawlconsole older than the captures table stored
// (a later 304 leaves them so). Their status, content type and validators are known,
// not the exchange as it was. A page fetched through redirects has its capture
// under its final URL.
func (s *Store) UncapturedPages(since time.Time, fn func(p Page, bodyErr error) error) error {
	urls, err := s.strings(`SELECT url FROM pages
		WHERE fetched_at >= ? AND NOT EXISTS (SELECT 1 FROM urls u JOIN captures c ON c.seq = u.seq
			WHERE u.url IN (pages.url, pages.final_url) AND c.status BETWEEN 200 AND 299)
		AND NOT EXISTS (SELECT 1 FROM captures c
			WHERE c.seq IS NULL AND c.url IN (pages.url, pages.final_url) AND c.status BETWEEN 200 AND 299)
		ORDER BY fetched_at, url`, nanos(since))
	if err != nil {
		return err
	}
	for _, u := range urls {
		p, err := s.Page(u)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			p.URL = u // a damaged body: the page is still worth a warning
		}
		if err := fn(p, err); err != nil {
			return err
		}
	}
	return nil
}

// PageRow is one stored page as Pages reads it: the page, what the store knows of
// its URL (class, site, keyword), and the node that fetched it (its newest capture's;
// "" in one process or before captures existed).
type PageRow struct {
	Page Page
	URL  URL
	Node string
	// Results are the round results kept for the page, by site and keyword (only
	// those two fields set); nil for none.
	Results []Result
}

// Pages calls fn for each stored page fetched at or after since, in fetch order. A
// page whose body does not decompress comes with a nil Body and bodyErr set. It
// reads in batches, each its own short read transaction, so a long export never
// holds back a running crawl's WAL checkpoints.
func (s *Store) Pages(since time.Time, fn func(r PageRow, bodyErr error) error) error {
	ctx := context.Background()
	const pageSize = 256
	afterAt, afterURL := nanos(since)-1, ""
	for {
		rows, err := s.rdb.QueryContext(ctx, `SELECT p.url, p.fetched_at, p.status, p.content_type, p.bytes,
			p.body_codec, p.body, p.duration_ms, p.lane, p.egress, p.etag, p.last_modified, p.simhash, p.final_url,
			COALESCE(u.class, ''), COALESCE(u.site, ''), COALESCE(u.keyword, ''), COALESCE(u.state, 0),
			COALESCE((SELECT node FROM captures c WHERE c.seq = u.seq OR (c.seq IS NULL AND c.url = p.url)
				ORDER BY c.id DESC LIMIT 1), '')
			FROM pages p LEFT JOIN urls u ON u.url = p.url
			WHERE (p.fetched_at, p.url) > (?, ?) ORDER BY p.fetched_at, p.url LIMIT ?`, afterAt, afterURL, pageSize)
		if err != nil {
			return s.readErr(err)
		}
		type row struct {
			r      PageRow
			codec  int
			stored []byte
			at     int64
		}
		var batch []row
		for rows.Next() {
			var x row
			p, u := &x.r.Page, &x.r.URL
			var durMS, simhash int64
			if err := rows.Scan(&p.URL, &x.at, &p.Status, &p.ContentType, &p.Bytes, &x.codec, &x.stored, &durMS,
				&p.Lane, &p.Egress, &p.ETag, &p.LastModified, &simhash, &p.FinalURL,
				&u.Class, &u.Site, &u.Keyword, &u.State, &x.r.Node); err != nil {
				rows.Close()
				return s.readErr(err)
			}
			p.FetchedAt, p.Duration, p.SimHash = fromNanos(x.at), time.Duration(durMS)*time.Millisecond, uint64(simhash)
			u.URL = p.URL
			batch = append(batch, x)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return s.readErr(err)
		}
		if err := batchResults(s, batch, func(x *row) string { return x.r.Page.URL }, func(x *row, r Result) {
			x.r.Results = append(x.r.Results, r)
		}); err != nil {
			return err
		}
		for _, x := range batch {
			body, err := bodycodec.Decompress(x.stored, x.codec, x.r.Page.Bytes)
			if err != nil {
				body, err = nil, fmt.Errorf("store: page %s: body: %w", x.r.Page.URL, err)
			}
			x.r.Page.Body = body
			if ferr := fn(x.r, err); ferr != nil {
				return ferr
			}
			afterAt, afterURL = x.at, x.r.Page.URL
		}
		if len(batch) < pageSize {
			return nil
		}
	}
}

// LastBodyCapture returns the newest capture of url before the capture beforeID that
// holds a 2xx body (the copy a 304 confirms), without its body, or ErrNotFound.
func (s *Store) LastBodyCapture(url string, beforeID int64) (Capture, error) {
	var c Capture
	var fetched int64
	err := s.rdb.QueryRowContext(context.Background(), `SELECT id, url, fetched_at, status, payload_digest, bytes
		FROM captures WHERE `+capturesOf+` AND id < ?2 AND refers_to IS NULL AND status BETWEEN 200 AND 299 AND kind = ''
		ORDER BY id DESC LIMIT 1`, url, beforeID).Scan(&c.ID, &c.URL, &fetched, &c.Status, &c.PayloadDigest, &c.Bytes)
	c.FetchedAt = fromNanos(fetched)
	return c, s.readErr(err)
}

// batchResults reads the round results of a batch of pages, one query a chunk of
// URLs on the results' primary key, and hands each to add with its page: the
// export holds one batch's results, never the whole table, however long the
// crawl.
func batchResults[T any](s *Store, batch []T, url func(*T) string, add func(*T, Result)) error {
	at := make(map[string]*T, len(batch))
	keys := make([]string, 0, len(batch))
	for i := range batch {
		u := url(&batch[i])
		if _, ok := at[u]; !ok {
			at[u] = &batch[i]
			keys = append(keys, u)
		}
	}
	return s.inChunks(keys, `SELECT url, site, keyword FROM results WHERE url IN (%s) ORDER BY url, site, keyword`,
		func(row interface{ Scan(...any) error }) error {
			var r Result
			if err := row.Scan(&r.URL, &r.Site, &r.Keyword); err != nil {
				return err
			}
			add(at[r.URL], r)
			return nil
		})
}
