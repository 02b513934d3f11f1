// Package store is the fixture's store.
package store

// Save stores n.
func Save(int) {}
