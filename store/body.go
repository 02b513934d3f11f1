package store

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"sync"
)

// Page bodies are kept compressed with zlib (stdlib) at BestSpeed: HTML shrinks 3-6x
// at a few hundred MB/s per core, and the Adler-32 trailer catches a damaged body on
// read. Compression runs on the caller's goroutine in SavePage, not on the writer, so
// it spreads over the engine's lanes while the single writer only does SQL.
const (
	codecRaw  = 0 // body stored as is (empty, or compression did not help)
	codecZlib = 1
)

// zlibWriters reuses compressors: a fresh flate writer allocates ~1 MB of tables.
var zlibWriters = sync.Pool{New: func() any {
	w, _ := zlib.NewWriterLevel(io.Discard, zlib.BestSpeed)
	return w
}}

// compressBody returns the body to store and its codec.
func compressBody(body []byte) ([]byte, int) {
	if len(body) == 0 {
		return nil, codecRaw
	}
	var buf bytes.Buffer
	buf.Grow(len(body)/3 + 64)
	zw := zlibWriters.Get().(*zlib.Writer)
	zw.Reset(&buf)
	_, err := zw.Write(body)
	if err == nil {
		err = zw.Close()
	}
	zlibWriters.Put(zw)
	if err != nil || buf.Len() >= len(body) {
		// e.g. an already-compressed image: keep it as is (copied: the caller may
		// reuse its buffer once SavePage returns).
		return bytes.Clone(body), codecRaw
	}
	return buf.Bytes(), codecZlib
}

// decompressBody reverses compressBody.
func decompressBody(stored []byte, codec int, sizeHint int64) ([]byte, error) {
	switch codec {
	case codecRaw:
		return stored, nil
	case codecZlib:
		zr, err := zlib.NewReader(bytes.NewReader(stored))
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		var out bytes.Buffer
		if sizeHint > 0 && sizeHint < 1<<30 {
			out.Grow(int(sizeHint))
		}
		if _, err := io.Copy(&out, zr); err != nil {
			return nil, err
		}
		return out.Bytes(), nil
	default:
		return nil, fmt.Errorf("unknown body codec %d", codec)
	}
}
