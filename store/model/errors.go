package model

import "errors"

// ErrNotFound means the URL, page or meta key is not in the store: what a reader of
// the store's meta (the operator's holds, say) tests for without linking SQLite.
var ErrNotFound = errors.New("not found")
