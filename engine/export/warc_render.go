package export

import (
	"sort"
	"time"

	"github.com/nlnwa/gowarc/v3"

	"github.com/crawlconsole/crawlconsole/store"
)

// A page rendered in the headless browser leaves in the store, besides its own
// exchange, the exchanges of the requests the page made through the crawler (plain
// captures, written as request and response records like any other) and the DOM
// the browser built (a store.CaptureRendered capture). The DOM is written as a
// conversion record (WARC 1.1 §6.9: content converted from another record by an
// archival process), Content-Type text/html, WARC-Refers-To the page's response
// record: a replay tool finds the page as the server sent it, and what a reader
// saw after the page's script ran.

// fetchKey names one fetch of a URL: its response's time, which the DOM built
// from it carries.
type fetchKey struct {
	url string
	at  int64 // Unix ns
}

// rendered writes a DOM's conversion record after its page's response, or keeps it
// until that response comes.
func (x *warcExport) rendered(c store.Capture) error {
	k := fetchKey{c.URL, c.FetchedAt.UnixNano()}
	if ref, ok := x.byFetch[k]; ok {
		return x.conversion(c, ref)
	}
	x.waiting[k] = append(x.waiting[k], c)
	return nil
}

// flushRenders writes the DOMs waiting for the response just exported (k).
func (x *warcExport) flushRenders(k fetchKey) error {
	cs := x.waiting[k]
	delete(x.waiting, k)
	for _, c := range cs {
		if err := x.conversion(c, x.byFetch[k]); err != nil {
			return err
		}
	}
	return nil
}

// orphanRenders writes the DOMs whose response this export did not write (it was
// exported by an earlier incremental export, or skipped): they refer to it by URI
// and date.
func (x *warcExport) orphanRenders() error {
	keys := make([]fetchKey, 0, len(x.waiting))
	for k := range x.waiting {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].at != keys[j].at {
			return keys[i].at < keys[j].at
		}
		return keys[i].url < keys[j].url
	})
	for _, k := range keys {
		for _, c := range x.waiting[k] {
			if err := x.conversion(c, exported{uri: c.URL, date: time.Unix(0, k.at)}); err != nil {
				return err
			}
		}
	}
	x.waiting = map[fetchKey][]store.Capture{}
	return nil
}

// conversion writes one rendered DOM, referring to ref (its page's response).
func (x *warcExport) conversion(c store.Capture, ref exported) error {
	rb := gowarc.NewRecordBuilder(gowarc.Conversion, recordOptions()...)
	x.common(rb, c.URL, c.FetchedAt, "")
	rb.AddWarcHeader(gowarc.ContentType, "text/html; charset=utf-8")
	if ref.id != "" {
		rb.AddWarcHeader(gowarc.WarcRefersTo, "<"+ref.id+">")
	}
	rb.AddWarcHeader(gowarc.WarcPayloadDigest, c.PayloadDigest)
	rb.Write(c.Body)
	rec, err := build(rb)
	if err != nil {
		x.warn("rendered DOM of %s left out: %v", c.URL, err)
		return nil
	}
	if err := x.sink.write(rec); err != nil {
		return err
	}
	x.rep.Records++
	x.rep.Conversions++
	return nil
}
