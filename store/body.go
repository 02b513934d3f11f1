package store

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// Page bodies are kept compressed with zstd (klauspost/compress) at SpeedFastest: HTML
// shrinks 3-6x, in about half the CPU time of zlib at BestSpeed for a slightly smaller
// result (the store bench's 2-8 KB bodies: ~26 µs vs ~46 µs each, ratio 3.79 vs 3.74),
// and the frame's content checksum catches a damaged body on read. Compression runs on the caller's
// goroutine in SavePage, not on the writer, so it spreads over the engine's lanes while
// the single writer only does SQL. Databases written before kept zlib (codec 1); those
// bodies still read.
const (
	codecRaw  = 0 // body stored as is (empty, or compression did not help)
	codecZlib = 1 // read only: bodies of databases written before codec 2
	codecZstd = 2
)

// zstdEnc and zstdDec are shared: EncodeAll and DecodeAll are safe for concurrent use
// and keep a small pool of (de)compressors inside. Those keep buffers as large as the
// largest body they handled, so bodies above sharedMax get a one-off (de)compressor
// instead: memory stays bounded by a few MiB whatever the crawl fetched.
var (
	zstdEnc = newZstdEncoder(0)
	zstdDec = newZstdDecoder(0)
)

const sharedMax = 1 << 20

// newZstdEncoder makes a SpeedFastest compressor with content checksums; concurrency
// 0 means GOMAXPROCS. The 1 MiB window costs nothing on HTML pages and bounds its
// buffers on huge bodies.
func newZstdEncoder(concurrency int) *zstd.Encoder {
	opts := []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(true),
		zstd.WithWindowSize(1 << 20)}
	if concurrency > 0 {
		opts = append(opts, zstd.WithEncoderConcurrency(concurrency))
	}
	enc, err := zstd.NewWriter(nil, opts...)
	if err != nil {
		panic(err) // only for invalid options, which are constants here
	}
	return enc
}

// newZstdDecoder makes a decompressor; concurrency 0 means GOMAXPROCS. A stored body
// decodes to at most what was fetched; 1 GiB bounds a damaged frame's claimed size.
func newZstdDecoder(concurrency int) *zstd.Decoder {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(1<<30), zstd.WithDecoderConcurrency(concurrency))
	if err != nil {
		panic(err) // only for invalid options, which are constants here
	}
	return dec
}

// compressBody returns the body to store and its codec.
func compressBody(body []byte) ([]byte, int) {
	if len(body) == 0 {
		return nil, codecRaw
	}
	enc := zstdEnc
	if len(body) > sharedMax {
		enc = newZstdEncoder(1)
		defer enc.Close()
	}
	out := enc.EncodeAll(body, make([]byte, 0, len(body)/3+64))
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
		dec := zstdDec
		if capHint > sharedMax || len(stored) > sharedMax {
			dec = newZstdDecoder(1)
			defer dec.Close()
		}
		return dec.DecodeAll(stored, make([]byte, 0, capHint))
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
