package store

// A first page's row id is chosen by the writer rather than by SQLite, so that the
// update marking its URL fetched can also record it (urls.page) before the insert:
// the next id past the table's highest, as SQLite would pick for a rowid table that
// never deletes. The highest id is read once per transaction (a seek to the end of
// the table) and counted up as pages are inserted; a rolled-back batch reads it again.

// nextPageID is the id the next inserted page takes.
func (w *writer) nextPageID() (int64, error) {
	if w.pageID == 0 {
		last, _, err := w.queryInt64(w.st.lastPageID)
		if err != nil {
			return 0, err
		}
		w.pageID = last
	}
	return w.pageID + 1, nil
}
