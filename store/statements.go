package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"strconv"
	"strings"
)

// statements are the writer's prepared statements, compiled once on the write
// connection (the driver's, see rawconn.go) and reused by every batch.
type statements struct {
	insertURL   driver.Stmt
	setState    driver.Stmt
	deferURL    driver.Stmt
	undeferURL  driver.Stmt
	findURL     driver.Stmt
	markFetched driver.Stmt
	// markFetchedStarted is markFetched that also counts the attempt of an
	// InProgress mark held back in the same batch (starts.go).
	markFetchedStarted driver.Stmt
	// setURLPage records a stored page's row id in its URL's row.
	setURLPage    driver.Stmt
	lastPageID    driver.Stmt
	insertPage    driver.Stmt
	replacePage   driver.Stmt
	retireLane    driver.Stmt
	openLane      driver.Stmt
	insertEvent   driver.Stmt
	pruneEvents   driver.Stmt
	setMeta       driver.Stmt
	upsertRevisit driver.Stmt
	// upsertRevisitChange is upsertRevisit with the change signal.
	upsertRevisitChange driver.Stmt
	setRevisitNext      driver.Stmt
	setRevisitNextIf    driver.Stmt // setRevisitNext where next still holds a given value
	insertCapture       driver.Stmt
	captureRef          driver.Stmt
	captureOwn          driver.Stmt
	upsertPageMeta      driver.Stmt
	deletePageMeta      driver.Stmt
	all                 []driver.Stmt
}

const pageColumns = `url, fetched_at, status, content_type, bytes, stored_bytes, body_codec, body,
	duration_ms, lane, egress, etag, last_modified, simhash, final_url`

// pageValues are pageColumns' parameters, ?1 to ?15.
var pageValues = params(1, 15)

// revisitUpdates is what an upsert of a revisit row sets on a stored one.
const revisitUpdates = `class = excluded.class, first = excluded.first, t = excluded.t,
	x = excluded.x, last = excluded.last, next = excluded.next, hash = excluded.hash,
	has_hash = excluded.has_hash, fetches = excluded.fetches, distance = excluded.distance,
	freq = excluded.freq, price = excluded.price, policy = excluded.policy,
	fresh = excluded.fresh, age = excluded.age, behind = excluded.behind`

// revisitValues are the parameters of a revisit row's first 17 columns (url to
// behind), ?1 to ?17.
var revisitValues = params(1, 17)

// upsertRevisitSQL writes a page's revisit state; a stored change signal stays. The
// row is keyed by its URL's row id, ?18 (revisit.seq = urls.seq, migration 18).
var upsertRevisitSQL = `INSERT INTO revisit(url, class, first, t, x, last, next, hash, has_hash,
	fetches, distance, freq, price, policy, fresh, age, behind, seq)
	VALUES(` + revisitValues + `, ?18)
	ON CONFLICT(seq) DO UPDATE SET ` + revisitUpdates

// sparseParams writes the parameters ?first, ?first+1, ... of a statement run with
// execSparse, which leaves zero values unbound (rawconn.go): one for each character
// of kinds, read as its type's zero value when unbound: t a text (”), i an integer
// or a bool (0), r a real (0.0); n is left as it is (a blob, or a value whose NULL
// means something, NULL being what a nil binds).
func sparseParams(first int, kinds string) string {
	var b strings.Builder
	for i, k := range kinds {
		if i > 0 {
			b.WriteString(", ")
		}
		p := "?" + strconv.Itoa(first+i)
		switch k {
		case 't':
			b.WriteString("IFNULL(" + p + ", '')")
		case 'i':
			b.WriteString("IFNULL(" + p + ", 0)")
		case 'r':
			b.WriteString("IFNULL(" + p + ", 0.0)")
		case 'n':
			b.WriteString(p)
		default:
			panic("sparseParams: unknown kind " + string(k))
		}
	}
	return b.String()
}

// params writes the parameters ?first to ?first+n-1 of a statement run with write,
// which binds every value: a zero needs no IFNULL to read as itself.
func params(first, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("?" + strconv.Itoa(first+i))
	}
	return b.String()
}

// prepareStatements compiles the writer's statements on conn.
func prepareStatements(ctx context.Context, conn rawConn) (*statements, error) {
	st := &statements{}
	var err error
	prep := func(dst *driver.Stmt, query string) {
		if err != nil {
			return
		}
		*dst, err = conn.PrepareContext(ctx, query)
		if err == nil {
			st.all = append(st.all, *dst)
		}
	}
	// The unique index on url settles dedupe; DO NOTHING leaves changes() at 0 for a
	// known URL, which is how AddURLs tells new from known.
	prep(&st.insertURL, `INSERT INTO urls(url, host, parent_hash, depth, class, site, keyword,
		state, lane, discovered_at, updated_at) VALUES(`+sparseParams(1, "ttiitttiii")+`, IFNULL(?10, 0))
		ON CONFLICT(url) DO NOTHING`)
	prep(&st.setState, `UPDATE urls SET state = ?1, lane = ?2, err_kind = ?3,
		attempts = attempts + (?1 = 1), updated_at = ?4 WHERE url = ?5`)
	prep(&st.deferURL, `UPDATE urls SET state = 4, deferred_until = ?, err_kind = ?, updated_at = ? WHERE url = ?`)
	prep(&st.undeferURL, `UPDATE urls SET deferred_until = ?, updated_at = ? WHERE url = ? AND state = 4`)
	// A fetched URL's row says which page is stored for it (0: none yet), so that the
	// writer stores a first page once and replaces a stored one in place. A row
	// without one takes ?4, the id the page is about to be inserted under
	// (pageids.go): one update of the row instead of a second one after the insert.
	// The row is read first and updated by its seq: an UPDATE ... RETURNING would
	// do both in one statement, but SQLite runs it through an ephemeral table and a
	// statement journal that cost more than the second statement (callgrind: 25k
	// instructions a page of 336k).
	prep(&st.findURL, `SELECT seq, page FROM urls WHERE url = ?`)
	prep(&st.markFetched, `UPDATE urls SET state = 2, lane = ?1, err_kind = '', updated_at = ?2,
		page = CASE page WHEN 0 THEN ?4 ELSE page END WHERE seq = ?3`)
	prep(&st.markFetchedStarted, `UPDATE urls SET state = 2, lane = ?1, err_kind = '', attempts = attempts + 1,
		updated_at = ?2, page = CASE page WHEN 0 THEN ?4 ELSE page END WHERE seq = ?3`)
	prep(&st.setURLPage, `UPDATE urls SET page = ? WHERE seq = ?`)
	prep(&st.lastPageID, `SELECT COALESCE(MAX(id), 0) FROM pages`)
	prep(&st.insertPage, `INSERT INTO pages(`+pageColumns+`, `+pageMetaColumns+`, id)
		VALUES(`+pageValues+`, `+pageMetaValues+`, ?29)`)
	prep(&st.replacePage, `INSERT INTO pages(`+pageColumns+`, `+pageMetaColumns+`, id)
		VALUES(`+pageValues+`, `+pageMetaValues+`, ?29)
		ON CONFLICT(id) DO UPDATE SET url = excluded.url, fetched_at = excluded.fetched_at, status = excluded.status,
		content_type = excluded.content_type, bytes = excluded.bytes, stored_bytes = excluded.stored_bytes,
		body_codec = excluded.body_codec, body = excluded.body, duration_ms = excluded.duration_ms,
		lane = excluded.lane, egress = excluded.egress, etag = excluded.etag,
		last_modified = excluded.last_modified, simhash = excluded.simhash, final_url = excluded.final_url,
		`+pageMetaUpdates)
	prep(&st.retireLane, `UPDATE lanes SET retired_at = ?, pages = ? WHERE id = ? AND retired_at = 0`)
	prep(&st.openLane, `INSERT INTO lanes(id, opened_at, egress) VALUES(?, ?, ?)`)
	prep(&st.insertEvent, `INSERT INTO events(at, level, lane, host, msg) VALUES(?, ?, ?, ?, ?)`)
	prep(&st.pruneEvents, `DELETE FROM events WHERE id <= (SELECT MAX(id) FROM events) - ?`)
	prep(&st.setMeta, `INSERT INTO meta(key, value) VALUES(?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`)
	prep(&st.upsertRevisit, upsertRevisitSQL)
	prep(&st.upsertRevisitChange, upsertRevisitChangeSQL)
	prep(&st.setRevisitNext, `UPDATE revisit SET next = ?1 WHERE seq = (SELECT seq FROM urls WHERE url = ?2)`)
	prep(&st.setRevisitNextIf, `UPDATE revisit SET next = ?1 WHERE seq = (SELECT seq FROM urls WHERE url = ?2) AND next = ?3`)
	// seq is the URL's row id, NULL when the store has no row for the URL (migration
	// 17): a URL's captures are those under its seq and those under its text with
	// seq NULL, which is what the OR in the statements below asks (SQLite runs it as
	// one lookup in each index, captures_seq and captures_url).
	prep(&st.insertCapture, `INSERT INTO captures(url, fetched_at, status, status_line, request_head,
		response_head, remote_ip, decoded, truncated, payload_digest, bytes, body_codec, body, refers_to,
		lane, egress, node, in_page, kind, seq) VALUES(`+params(1, 20)+`)`)
	// Before a page's body is replaced by a different one, the capture that shared
	// the old body takes its own copy.
	prep(&st.captureOwn, `UPDATE captures SET in_page = 0,
		body = (SELECT body FROM pages WHERE id = ?3), body_codec = (SELECT body_codec FROM pages WHERE id = ?3)
		WHERE (seq = ?4 OR (seq IS NULL AND url = ?1)) AND in_page = 1 AND payload_digest != ?2`)
	// The capture holding this URL's body with this digest, if any (the first:
	// revisits always point at a record that has the payload).
	prep(&st.captureRef, `SELECT id FROM captures
		WHERE (seq = ?3 OR (seq IS NULL AND url = ?1)) AND payload_digest = ?2 AND refers_to IS NULL AND kind = ''
		ORDER BY id LIMIT 1`)
	if err != nil {
		st.close()
		return nil, err
	}
	return st, nil
}

// close releases the statements.
func (st *statements) close() error {
	var errs []error
	for _, s := range st.all {
		errs = append(errs, s.Close())
	}
	st.all = nil
	return errors.Join(errs...)
}
