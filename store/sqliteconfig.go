//go:build cgo

package store

// SQLite keeps global statistics of the memory it allocates (sqlite3_memory_used and
// the like) by default, taking a process-wide mutex around every malloc and free to
// update them: some 70 of each a stored page, about 10k instructions a page in the
// writer (callgrind). Nothing here reads those statistics, so they are switched off
// once, before any connection opens. This has to happen before SQLite initializes
// (its first open), so it runs in init; called later, sqlite3_config refuses
// (SQLITE_MISUSE) and changes nothing.
//
// sqlite3_config is the SQLite that go-sqlite3 builds in (or the system's, with its
// libsqlite3 tag). It is declared weak because cgo links this package's C part on
// its own once, to list its imports, and SQLite is not in that link; the program's
// link resolves it.

/*
extern int sqlite3_config(int, ...) __attribute__((weak));

static int store_memstatus_off(void) {
	if (!sqlite3_config) {
		return -1;
	}
	return sqlite3_config(9, 0); // SQLITE_CONFIG_MEMSTATUS, off
}
*/
import "C"

// memstatusOff is sqlite3_config's result: 0 (SQLITE_OK) when the statistics are
// off, 21 (SQLITE_MISUSE) when SQLite had already initialized, -1 when the program
// has no sqlite3_config.
var memstatusOff = int(C.store_memstatus_off())
