//go:build !cgo

package walvfs

// Name is "" without cgo: go-sqlite3 is then a stub that opens nothing.
func Name() string { return "" }
