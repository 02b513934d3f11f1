//go:build cgo

package store

// Two of SQLite's process-wide settings are changed once, before any connection
// opens. They have to be set before SQLite initializes (its first open), so this
// runs in init; called later, sqlite3_config refuses (SQLITE_MISUSE) and changes
// nothing.
//
//   - Memory statistics off (SQLITE_CONFIG_MEMSTATUS): SQLite keeps global counts
//     of what it allocates (sqlite3_memory_used and the like) by taking a
//     process-wide mutex around every malloc and free, some 70 of each a stored
//     page, about 10k instructions a page in the writer (callgrind). Nothing here
//     reads those counts.
//   - A bigger lookaside (SQLITE_CONFIG_LOOKASIDE, each new connection's own pool
//     of small allocations): 480 KB, asked as 400 slots of 1,200 bytes (SQLite
//     splits it into 303 slots of 1,200 bytes and 909 of 128), instead of the
//     default's 48 KB. The writer's two dozen prepared statements hold most of the
//     default's slots for as long as they live, so the cursors and values of every
//     statement it runs fell through to malloc and free: about 65 of each a stored
//     page, some 10k instructions. The cost is memory: SQLite links every slot
//     when a connection opens, so each connection (the writer and each reader) is
//     about 420 KB bigger from its open on, some 1.3–2.1 MB a store. A pool of 128
//     slots kept two thirds of the gain (294.5k instructions a page against 291.4k
//     and 300.9k without) for a third of the memory; the crawl's own RSS is some
//     200 MB, so the larger one stays.
//
// sqlite3_config is the SQLite that go-sqlite3 builds in (or the system's, with its
// libsqlite3 tag). It is declared weak because cgo links this package's C part on
// its own once, to list its imports, and SQLite is not in that link; the program's
// link resolves it.

/*
extern int sqlite3_config(int, ...) __attribute__((weak));

static int store_sqlite_config(int what) {
	if (!sqlite3_config) {
		return -1;
	}
	switch (what) {
	case 0:
		return sqlite3_config(9, 0); // SQLITE_CONFIG_MEMSTATUS, off
	default:
		return sqlite3_config(13, 1200, 400); // SQLITE_CONFIG_LOOKASIDE: slot size, slots
	}
}
*/
import "C"

// sqliteConfig is sqlite3_config's result for each setting above (memory
// statistics, lookaside): 0 (SQLITE_OK) when it took, 21 (SQLITE_MISUSE) when
// SQLite had already initialized, -1 when the program has no sqlite3_config.
var sqliteConfig = [2]int{int(C.store_sqlite_config(0)), int(C.store_sqlite_config(1))}
