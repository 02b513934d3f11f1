package store

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// Page bodies are kept compressed with zstd (klauspost/compress) at SpeedFastest: HTML
// shrinks 3-6x, about 4x faster than zlib at BestSpeed for a slightly smaller result
// (measured on the store bench's bodies: ~11 µs vs ~50 µs for 5.4 KB), and the frame's
// content checksum catches a damaged body on read. Compression runs on the caller's
// goroutine in SavePage, not on the writer, so it spreads over the engine's lanes while
// the single writer only does SQL. Databases written before kept zlib (codec 1); those
// bodies still read.
const (
	codecRaw  = 0 // body stored as is (empty, or compression did not help)
	codecZlib = 1 // read only: bodies of databases written before codec 2
	codecZstd = 2
)

// zstdEnc and zstdDec are shared: EncodeAll and DecodeAll are safe for concurrent use
// and keep a small pool of (de)compressors inside.
var (
	zstdEnc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(true))
	// A stored body decodes to at most what was fetched; 1 GiB bounds a corrupt frame's
	// claimed size.
	zstdDec, _ = zstd.NewReader(nil, zstd.WithDecoderMaxMemory(1<<30), zstd.WithDecoderConcurrency(0))
)

// compressBody returns the body to store and its codec.
func compressBody(body []byte) ([]byte, int) {
	if len(body) == 0 {
		return nil, codecRaw
	}
	out := zstdEnc.EncodeAll(body, make([]byte, 0, len(body)/3+64))
	if len(out) >= len(body) {
		// e.g. an already-compressed image: keep it as is (copied: the caller may
		// reuse its buffer once SavePage returns).
		return bytes.Clone(body), codecRaw
	}
	return out, codecZstd
}

// decompressBody reverses compressBody, and reads zlib bodies of older databases.
func decompressBody(stored []byte, codec int, sizeHint int64) ([]byte, error) {
	var capHint int
	if sizeHint > 0 && sizeHint < 1<<30 {
		capHint = int(sizeHint)
	}
	switch codec {
	case codecRaw:
		return stored, nil
	case codecZstd:
		return zstdDec.DecodeAll(stored, make([]byte, 0, capHint))
	case codecZlib:
		zr, err := zlib.NewReader(bytes.NewReader(stored))
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		out := bytes.NewBuffer(make([]byte, 0, capHint))
		if _, err := io.Copy(out, zr); err != nil {
			return nil, err
		}
		return out.Bytes(), nil
	default:
		return nil, fmt.Errorf("unknown body codec %d", codec)
	}
}
