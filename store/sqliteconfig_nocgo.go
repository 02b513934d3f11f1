//go:build !cgo

package store

// Without cgo go-sqlite3 is a stub that opens nothing; there is nothing to set.
var sqliteConfig = [2]int{-1, -1}
