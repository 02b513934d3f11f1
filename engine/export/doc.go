// Package export takes a crawl's data out of the store in the formats other tools
// read: WARC 1.1 (ISO 28500:2017), the archive format of Heritrix, wget, pywb and
// the replay and indexing tools around them, and JSON Lines, one object per stored
// page with its main text, for analysis.
//
// The WARC records come from the store's captures (every HTTP exchange as it crossed
// the wire: the request as sent, the response's status line and header fields as
// received, the body) and are written with github.com/nlnwa/gowarc/v3 (the README's
// "Data out" section says why that library). The export reads the store only: it
// runs beside a crawl writing into the same database.
package export
