//go:build !cgo

package store

// Without cgo go-sqlite3 is a stub that opens nothing; there are no statistics to
// switch off.
var memstatusOff = -1
