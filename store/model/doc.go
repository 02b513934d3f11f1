// Package model holds the store's rows and options as plain values: what the
// engine hands a store and gets back from it. It has no SQLite in it, so a package
// that only carries these values (options, wire messages, the lane side, sites and
// feeds) does not link the SQLite driver; package store re-exports each of them
// under the same name for callers that also open a store.
package model
