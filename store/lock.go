package store

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// dbLock is the advisory lock that keeps a second crawlconsole process off a database.
// It is flock(2) on PATH+".lock": the kernel drops it when the holder dies, even by
// kill -9, so a crash never leaves a stale lock behind. flock locks belong to the open
// file description, so a second Open in the same process is refused too.
type dbLock struct {
	f *os.File
}

// lockPath is where the lock for a database lives.
func lockPath(dbPath string) string { return dbPath + ".lock" }

// acquireLock takes the lock without waiting and records our pid in it, or returns an
// *InUseError naming the holder's pid.
func acquireLock(dbPath string) (*dbLock, error) {
	path := lockPath(dbPath)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: cannot create lock file: %w", dbPath, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		pid := readPID(f)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &InUseError{Path: dbPath, PID: pid}
		}
		return nil, fmt.Errorf("store: open %s: lock %s: %w", dbPath, path, err)
	}
	// The file is never unlinked: removing it while another process has it open
	// would let two processes each lock a different inode.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &dbLock{f: f}, nil
}

// readPID reads the holder's pid; 0 when the file is empty or garbled (the holder may
// be between taking the lock and writing its pid).
func readPID(f *os.File) int {
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil {
		return 0
	}
	return pid
}

// release drops the lock. It unlocks before it closes: closing releases a flock
// only with the last descriptor of the open file, and a child process this one is
// starting (a browser for the renderer) holds a copy of every descriptor between
// its fork and its exec, so a database closed then and opened again at once was
// found in use by this very process.
func (l *dbLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	unlockErr := syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	err := l.f.Close()
	l.f = nil
	return errors.Join(unlockErr, err)
}
