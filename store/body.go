package store

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Page bodies are kept compressed with zstd (klauspost/compress) at SpeedFastest, and
// the frame's content checksum catches a damaged body on read. Bodies under
// smallBody keep their literals raw (no Huffman pass): building the Huffman table
// is most of the cost of compressing a few kilobytes (the sandbox's 2-8 KB pages:
// about 0.4x the CPU, ratio 1.60 instead of 2.12; real pages cut to 4 KB: ratio 2.36
// instead of 3.07), and the kilobytes it would save are few; larger bodies, where
// the disk goes, keep it (the extraction benchmark's real pages: ratio 4.77). Both
// are plain zstd frames (codec 2). Compression runs on the caller's goroutine in
// SavePage, not on the writer, so it spreads over the engine's lanes while the
// single writer only does SQL. Databases written before kept zlib (codec 1); those
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
	zstdEnc      = newZstdEncoder(0, false)
	zstdEncSmall = newZstdEncoder(0, true)
	zstdDec      = newZstdDecoder(0)
)

// smallBody is the size under which a body's literals are stored raw.
const smallBody = 8 << 10

const sharedMax = 1 << 20

// newZstdEncoder makes a SpeedFastest compressor with content checksums, literals raw
// if rawLiterals; concurrency 0 means GOMAXPROCS. The 1 MiB window costs nothing on
// HTML pages and bounds its buffers on huge bodies.
func newZstdEncoder(concurrency int, rawLiterals bool) *zstd.Encoder {
	opts := []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(true),
		zstd.WithWindowSize(1 << 20), zstd.WithNoEntropyCompression(rawLiterals)}
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

// compressBody returns the body to store and its codec: a new slice of the compressed
// size exactly (it waits in the writer's queue, so a roomy one would hold memory),
// compressed into a pooled scratch buffer first.
func compressBody(body []byte) ([]byte, int) {
	if len(body) == 0 {
		return nil, codecRaw
	}
	enc := zstdEnc
	switch {
	case len(body) < smallBody:
		enc = zstdEncSmall
	case len(body) > sharedMax:
		enc = newZstdEncoder(1, false)
		defer enc.Close()
	}
	scratch := bodyScratch.Get().(*[]byte)
	out := enc.EncodeAll(body, (*scratch)[:0])
	defer func() {
		if cap(out) <= sharedMax {
			*scratch = out[:0]
			bodyScratch.Put(scratch)
		}
	}()
	if len(out) >= len(body) {
		// e.g. an already-compressed image: keep it as is (copied: the caller may
		// reuse its buffer once SavePage returns).
		return bytes.Clone(body), codecRaw
	}
	return bytes.Clone(out), codecZstd
}

// bodyScratch holds compressBody's scratch buffers (*[]byte), up to sharedMax each.
var bodyScratch = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

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
