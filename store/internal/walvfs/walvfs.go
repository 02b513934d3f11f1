//go:build cgo

// Package walvfs registers an SQLite VFS for the store's write connection that hands
// a transaction's WAL frames to the kernel in one write instead of two a frame.
//
// SQLite's unix VFS writes each WAL frame as two pwrite calls, its 24-byte header
// and its page, and a stored page costs some 2.6 frames: over five system calls a
// page, each a trip through the file system's write path (on the project's build
// box 5.4 µs of CPU a frame written so, against 0.6 when 64 frames go in one call).
// This VFS is the unix one with the WAL file's appended frames gathered in memory
// and written in one call when the transaction's commit frame is complete, before
// SQLite publishes the commit to readers: a commit is in the operating system's
// hands by the time COMMIT returns, as with the unix VFS (what survives a kill -9
// is the same). Everything else goes to the unix VFS as it came: the database file,
// reads, syncs, truncation, and WAL writes over frames written before (SQLite
// rewrites a frame in place when a transaction spills a page twice, and rewrites
// checksums), each after what is gathered is written, so the file sees the writes
// in SQLite's order.
package walvfs

/*
#include <stdlib.h>
#include <string.h>

// The VFS interface's structures as sqlite3.h declares them (versions 3 of both:
// their layout is part of SQLite's stable ABI). sqlite3.h is not on this package's
// include path: go-sqlite3 compiles its own copy of SQLite.
typedef long long sqlite3_int64;
typedef struct sqlite3_file sqlite3_file;
typedef struct sqlite3_io_methods sqlite3_io_methods;
typedef struct sqlite3_vfs sqlite3_vfs;
typedef void (*sqlite3_syscall_ptr)(void);
struct sqlite3_file { const sqlite3_io_methods *pMethods; };
struct sqlite3_io_methods {
	int iVersion;
	int (*xClose)(sqlite3_file*);
	int (*xRead)(sqlite3_file*, void*, int, sqlite3_int64);
	int (*xWrite)(sqlite3_file*, const void*, int, sqlite3_int64);
	int (*xTruncate)(sqlite3_file*, sqlite3_int64);
	int (*xSync)(sqlite3_file*, int);
	int (*xFileSize)(sqlite3_file*, sqlite3_int64*);
	int (*xLock)(sqlite3_file*, int);
	int (*xUnlock)(sqlite3_file*, int);
	int (*xCheckReservedLock)(sqlite3_file*, int*);
	int (*xFileControl)(sqlite3_file*, int, void*);
	int (*xSectorSize)(sqlite3_file*);
	int (*xDeviceCharacteristics)(sqlite3_file*);
	int (*xShmMap)(sqlite3_file*, int, int, int, void volatile**);
	int (*xShmLock)(sqlite3_file*, int, int, int);
	void (*xShmBarrier)(sqlite3_file*);
	int (*xShmUnmap)(sqlite3_file*, int);
	int (*xFetch)(sqlite3_file*, sqlite3_int64, int, void**);
	int (*xUnfetch)(sqlite3_file*, sqlite3_int64, void*);
};
struct sqlite3_vfs {
	int iVersion;
	int szOsFile;
	int mxPathname;
	sqlite3_vfs *pNext;
	const char *zName;
	void *pAppData;
	int (*xOpen)(sqlite3_vfs*, const char*, sqlite3_file*, int, int*);
	int (*xDelete)(sqlite3_vfs*, const char*, int);
	int (*xAccess)(sqlite3_vfs*, const char*, int, int*);
	int (*xFullPathname)(sqlite3_vfs*, const char*, int, char*);
	void *(*xDlOpen)(sqlite3_vfs*, const char*);
	void (*xDlError)(sqlite3_vfs*, int, char*);
	void (*(*xDlSym)(sqlite3_vfs*, void*, const char*))(void);
	void (*xDlClose)(sqlite3_vfs*, void*);
	int (*xRandomness)(sqlite3_vfs*, int, char*);
	int (*xSleep)(sqlite3_vfs*, int);
	int (*xCurrentTime)(sqlite3_vfs*, double*);
	int (*xGetLastError)(sqlite3_vfs*, int, char*);
	int (*xCurrentTimeInt64)(sqlite3_vfs*, sqlite3_int64*);
	int (*xSetSystemCall)(sqlite3_vfs*, const char*, sqlite3_syscall_ptr);
	sqlite3_syscall_ptr (*xGetSystemCall)(sqlite3_vfs*, const char*);
	const char *(*xNextSystemCall)(sqlite3_vfs*, const char*);
};

// Weak, as in the store's sqlite3_config call: cgo links this package's C part on
// its own once, to list its imports, and SQLite is not in that link.
extern sqlite3_vfs *sqlite3_vfs_find(const char*) __attribute__((weak));
extern int sqlite3_vfs_register(sqlite3_vfs*, int) __attribute__((weak));
extern sqlite3_file *sqlite3_database_file_object(const char*) __attribute__((weak));

#define WALVFS_OK 0
#define WALVFS_NOMEM 7
#define WALVFS_OPEN_WAL 0x00080000
#define WALVFS_WAL_HEADER 32       // the WAL file's header, written at offset 0 when the log restarts
#define WALVFS_FRAME_HEADER 24     // a frame's header: page number, then the commit's database size (0: not a commit)
#define WALVFS_GATHER_MAX (2 << 20) // what is gathered is written once it would grow past this
#define WALVFS_WRITE_MAX 0x1f000    // the unix VFS writes at most 128 KiB a call (seekAndWriteFd)

typedef struct walvfs_file walvfs_file;
struct walvfs_file {
	sqlite3_file base;
	sqlite3_file *real;  // the unix VFS's file, allocated right after this struct
	int is_wal;
	walvfs_file *wal;    // a database file: its connection's WAL file, while open
	walvfs_file *db;     // a WAL file: its database file
	unsigned char *buf;  // frames gathered, to be written at off
	int n, cap;
	sqlite3_int64 off;
	sqlite3_int64 end;   // the end of what was written to the log since its header
	int commit;          // buf ends with a commit frame's header: write once its page follows
	int err;             // the write that a barrier could not report, for the next call
};

static sqlite3_vfs *walvfs_real;
static sqlite3_vfs walvfs_vfs;

#define REAL(f) (((walvfs_file*)(f))->real)
#define RM(f) (REAL(f)->pMethods)

// walvfs_flush writes what is gathered.
static int walvfs_flush(walvfs_file *w) {
	int rc = WALVFS_OK;
	if (w->err) {
		rc = w->err;
		w->err = 0;
	}
	for (int done = 0; done < w->n && rc == WALVFS_OK;) {
		int amt = w->n - done < WALVFS_WRITE_MAX ? w->n - done : WALVFS_WRITE_MAX;
		rc = w->real->pMethods->xWrite(w->real, w->buf + done, amt, w->off + done);
		done += amt;
	}
	w->n = 0;
	return rc;
}

static int walvfs_write(sqlite3_file *f, const void *data, int amt, sqlite3_int64 ofst) {
	walvfs_file *w = (walvfs_file*)f;
	if (!w->is_wal) {
		return RM(f)->xWrite(REAL(f), data, amt, ofst);
	}
	int rc;
	int commit = w->commit; // this write is the commit frame's page
	w->commit = 0;
	if (ofst == 0 && amt == WALVFS_WAL_HEADER) {
		// The log restarts: frames are appended from its header on.
		if ((rc = walvfs_flush(w)) != WALVFS_OK) {
			return rc;
		}
		w->end = 0;
	}
	if (!(w->n > 0 && ofst == w->off + w->n && w->n + amt <= WALVFS_GATHER_MAX)) {
		if ((rc = walvfs_flush(w)) != WALVFS_OK) {
			return rc;
		}
		if (ofst < w->end || amt > WALVFS_GATHER_MAX) {
			// Over a frame written before (a page spilled again, a checksum
			// rewritten): written now, in order.
			rc = RM(f)->xWrite(REAL(f), data, amt, ofst);
			if (rc == WALVFS_OK && ofst + amt > w->end) {
				w->end = ofst + amt;
			}
			return rc;
		}
		w->off = ofst;
	}
	if (w->n + amt > w->cap) {
		int cap = w->cap ? w->cap : 64 << 10;
		while (cap < w->n + amt) {
			cap *= 2;
		}
		unsigned char *buf = realloc(w->buf, cap);
		if (!buf) {
			walvfs_flush(w);
			return WALVFS_NOMEM;
		}
		w->buf = buf;
		w->cap = cap;
	}
	memcpy(w->buf + w->n, data, amt);
	w->n += amt;
	if (ofst + amt > w->end) {
		w->end = ofst + amt;
	}
	if (commit) {
		// The commit frame's page: the transaction's frames go now, before SQLite
		// tells readers of the commit and before COMMIT returns.
		return walvfs_flush(w);
	}
	if (amt == WALVFS_FRAME_HEADER) {
		const unsigned char *h = data;
		w->commit = (h[4] | h[5] | h[6] | h[7]) != 0;
	}
	return WALVFS_OK;
}

static int walvfs_close(sqlite3_file *f) {
	walvfs_file *w = (walvfs_file*)f;
	int rc = walvfs_flush(w);
	if (w->db && w->db->wal == w) {
		w->db->wal = 0;
	}
	if (w->wal && w->wal->db == w) {
		w->wal->db = 0;
	}
	int crc = RM(f)->xClose(REAL(f));
	free(w->buf);
	w->buf = 0;
	w->cap = 0;
	return rc != WALVFS_OK ? rc : crc;
}

static int walvfs_read(sqlite3_file *f, void *data, int amt, sqlite3_int64 ofst) {
	int rc = walvfs_flush((walvfs_file*)f);
	return rc != WALVFS_OK ? rc : RM(f)->xRead(REAL(f), data, amt, ofst);
}

static int walvfs_truncate(sqlite3_file *f, sqlite3_int64 size) {
	int rc = walvfs_flush((walvfs_file*)f);
	return rc != WALVFS_OK ? rc : RM(f)->xTruncate(REAL(f), size);
}

static int walvfs_sync(sqlite3_file *f, int flags) {
	int rc = walvfs_flush((walvfs_file*)f);
	return rc != WALVFS_OK ? rc : RM(f)->xSync(REAL(f), flags);
}

static int walvfs_file_size(sqlite3_file *f, sqlite3_int64 *size) {
	int rc = walvfs_flush((walvfs_file*)f);
	return rc != WALVFS_OK ? rc : RM(f)->xFileSize(REAL(f), size);
}

static int walvfs_lock(sqlite3_file *f, int lock) { return RM(f)->xLock(REAL(f), lock); }
static int walvfs_unlock(sqlite3_file *f, int lock) { return RM(f)->xUnlock(REAL(f), lock); }
static int walvfs_check_reserved(sqlite3_file *f, int *out) { return RM(f)->xCheckReservedLock(REAL(f), out); }

static int walvfs_file_control(sqlite3_file *f, int op, void *arg) {
	int rc = walvfs_flush((walvfs_file*)f);
	return rc != WALVFS_OK ? rc : RM(f)->xFileControl(REAL(f), op, arg);
}

static int walvfs_sector_size(sqlite3_file *f) { return RM(f)->xSectorSize(REAL(f)); }
static int walvfs_device(sqlite3_file *f) { return RM(f)->xDeviceCharacteristics(REAL(f)); }

static int walvfs_shm_map(sqlite3_file *f, int pg, int pgsz, int extend, void volatile **pp) {
	return RM(f)->xShmMap(REAL(f), pg, pgsz, extend, pp);
}

static int walvfs_shm_lock(sqlite3_file *f, int offset, int n, int flags) {
	return RM(f)->xShmLock(REAL(f), offset, n, flags);
}

// A barrier on the database file comes before SQLite publishes a commit in the
// WAL index: the log's frames must be in the file by then. The commit frame wrote
// them already; this covers a path that would not (padding frames after it).
static void walvfs_shm_barrier(sqlite3_file *f) {
	walvfs_file *w = (walvfs_file*)f;
	if (w->wal && w->wal->n > 0) {
		w->wal->err = walvfs_flush(w->wal);
	}
	RM(f)->xShmBarrier(REAL(f));
}

static int walvfs_shm_unmap(sqlite3_file *f, int del) { return RM(f)->xShmUnmap(REAL(f), del); }

static int walvfs_fetch(sqlite3_file *f, sqlite3_int64 ofst, int amt, void **pp) {
	if (RM(f)->iVersion < 3) {
		*pp = 0;
		return WALVFS_OK;
	}
	return RM(f)->xFetch(REAL(f), ofst, amt, pp);
}

static int walvfs_unfetch(sqlite3_file *f, sqlite3_int64 ofst, void *p) {
	if (RM(f)->iVersion < 3) {
		return WALVFS_OK;
	}
	return RM(f)->xUnfetch(REAL(f), ofst, p);
}

#define WALVFS_METHODS(version) { \
	version, walvfs_close, walvfs_read, walvfs_write, walvfs_truncate, walvfs_sync, walvfs_file_size, \
	walvfs_lock, walvfs_unlock, walvfs_check_reserved, walvfs_file_control, walvfs_sector_size, \
	walvfs_device, walvfs_shm_map, walvfs_shm_lock, walvfs_shm_barrier, walvfs_shm_unmap, \
	walvfs_fetch, walvfs_unfetch, \
}

// The unix VFS's files with shared memory (what WAL needs) have methods of version
// 3; a file of a locking style without (version 1) is offered as it is.
static const sqlite3_io_methods walvfs_methods = WALVFS_METHODS(3);
static const sqlite3_io_methods walvfs_methods_v1 = WALVFS_METHODS(1);

static int walvfs_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags, int *out) {
	walvfs_file *w = (walvfs_file*)f;
	memset(w, 0, sizeof *w);
	w->real = (sqlite3_file*)&w[1];
	int rc = walvfs_real->xOpen(walvfs_real, name, w->real, flags, out);
	if (rc != WALVFS_OK) {
		if (w->real->pMethods) {
			w->real->pMethods->xClose(w->real);
		}
		f->pMethods = 0;
		return rc;
	}
	if (w->real->pMethods->iVersion < 2) {
		f->pMethods = &walvfs_methods_v1;
		return rc;
	}
	if ((flags & WALVFS_OPEN_WAL) && name) {
		w->is_wal = 1;
		sqlite3_file *db = sqlite3_database_file_object(name);
		if (db && db->pMethods == &walvfs_methods) {
			w->db = (walvfs_file*)db;
			w->db->wal = w;
		}
	}
	f->pMethods = &walvfs_methods;
	return rc;
}

static int walvfs_delete(sqlite3_vfs *v, const char *name, int sync) { return walvfs_real->xDelete(walvfs_real, name, sync); }
static int walvfs_access(sqlite3_vfs *v, const char *name, int flags, int *out) { return walvfs_real->xAccess(walvfs_real, name, flags, out); }
static int walvfs_full_pathname(sqlite3_vfs *v, const char *name, int n, char *out) { return walvfs_real->xFullPathname(walvfs_real, name, n, out); }
static void *walvfs_dl_open(sqlite3_vfs *v, const char *name) { return walvfs_real->xDlOpen(walvfs_real, name); }
static void walvfs_dl_error(sqlite3_vfs *v, int n, char *msg) { walvfs_real->xDlError(walvfs_real, n, msg); }
static void (*walvfs_dl_sym(sqlite3_vfs *v, void *h, const char *sym))(void) { return walvfs_real->xDlSym(walvfs_real, h, sym); }
static void walvfs_dl_close(sqlite3_vfs *v, void *h) { walvfs_real->xDlClose(walvfs_real, h); }
static int walvfs_randomness(sqlite3_vfs *v, int n, char *out) { return walvfs_real->xRandomness(walvfs_real, n, out); }
static int walvfs_sleep(sqlite3_vfs *v, int us) { return walvfs_real->xSleep(walvfs_real, us); }
static int walvfs_current_time(sqlite3_vfs *v, double *t) { return walvfs_real->xCurrentTime(walvfs_real, t); }
static int walvfs_last_error(sqlite3_vfs *v, int n, char *msg) { return walvfs_real->xGetLastError(walvfs_real, n, msg); }
static int walvfs_current_time64(sqlite3_vfs *v, sqlite3_int64 *t) { return walvfs_real->xCurrentTimeInt64(walvfs_real, t); }

// walvfs_register registers the VFS as name, wrapping the unix VFS; 0 when it did.
static int walvfs_register(const char *name) {
	if (!sqlite3_vfs_find || !sqlite3_vfs_register || !sqlite3_database_file_object) {
		return -1;
	}
	walvfs_real = sqlite3_vfs_find("unix");
	if (!walvfs_real || walvfs_real->iVersion < 2) {
		return -1;
	}
	sqlite3_vfs *v = &walvfs_vfs;
	v->iVersion = 2;
	v->szOsFile = (int)sizeof(walvfs_file) + walvfs_real->szOsFile;
	v->mxPathname = walvfs_real->mxPathname;
	v->zName = name;
	v->xOpen = walvfs_open;
	v->xDelete = walvfs_delete;
	v->xAccess = walvfs_access;
	v->xFullPathname = walvfs_full_pathname;
	v->xDlOpen = walvfs_dl_open;
	v->xDlError = walvfs_dl_error;
	v->xDlSym = walvfs_dl_sym;
	v->xDlClose = walvfs_dl_close;
	v->xRandomness = walvfs_randomness;
	v->xSleep = walvfs_sleep;
	v->xCurrentTime = walvfs_current_time;
	v->xGetLastError = walvfs_last_error;
	v->xCurrentTimeInt64 = walvfs_current_time64;
	return sqlite3_vfs_register(v, 0);
}
*/
import "C"

import "sync"

var (
	once sync.Once
	name string
)

// Name is the VFS to open the store's write connection with (go-sqlite3's vfs=
// parameter), registered at the first call, or "" when it could not be (an SQLite
// without the calls it needs): the connection then uses SQLite's default. It is
// not registered at init: finding the unix VFS initializes SQLite, after which the
// store's process-wide settings (sqlite3_config, in its init) would be refused.
func Name() string {
	once.Do(func() {
		const n = "crawlconsole-wal"
		if C.walvfs_register(C.CString(n)) == 0 { // the name lives as long as the VFS: never freed
			name = n
		}
	})
	return name
}
