package store

// A stored page's URL is nearly always one this writer inserted itself, as a link of
// an earlier page, and has no stored page yet: the writer remembers the row ids it
// gave such URLs (urlRows), so that storing the page does not look its URL up in
// the urls index again (that lookup was some 10k instructions of a stored page's
// 268k). An entry stands for a row whose page is 0: it goes once the row's page is
// set, and every entry goes when a transaction is rolled back, since the row ids
// it gave may never be committed and are given again. The urls rows are written by
// this writer alone and never deleted, so an entry cannot go stale otherwise. At
// most maxURLRows are kept; a URL past them is looked up as before.

// maxURLRows bounds urlRows (some 100 bytes an entry with its URL).
const maxURLRows = 1 << 16

// rememberURL records the row id just given to url, a row without a page.
func (w *writer) rememberURL(url string, seq int64) {
	if len(w.urlRows) >= maxURLRows {
		return
	}
	if w.urlRows == nil {
		w.urlRows = make(map[string]int64)
	}
	w.urlRows[url] = seq
}

// forgetURL drops url's entry: its row's page is being set.
func (w *writer) forgetURL(url string) { delete(w.urlRows, url) }

// findURL returns url's row id and its stored page's id (0: none), with found false
// when the store has no row for url.
func (w *writer) findURL(url string) (seq, page int64, found bool, err error) {
	if seq, ok := w.urlRows[url]; ok {
		return seq, 0, true, nil
	}
	var row [2]int64
	found, err = w.queryInts(w.st.findURL, row[:], url)
	return row[0], row[1], found, err
}
