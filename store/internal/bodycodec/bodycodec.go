// Package bodycodec is how the store keeps a page's body: compressed on the
// caller's goroutine before the writer stores it, and read back by its codec,
// including the codecs of databases written before.
package bodycodec

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// Page bodies are kept compressed. Bodies under smallBody (the sandbox's 2-8 KB
// pages, most article pages cut to their HTML) are S2 blocks (klauspost/compress/s2,
// codec 3): on them zstd's best trade was SpeedFastest with raw literals (no Huffman
// table: building one is most of the cost of a few kilobytes), and S2 compresses as
// well as that (the sandbox's pages: ratio 1.60 against 1.55) at about 0.4x its CPU
// (7 against 17 µs for a 3.6 KB page). Larger bodies, where the disk goes, are zstd
// frames at SpeedFastest with Huffman literals (codec 2; the extraction benchmark's
// real pages: ratio 4.77). An S2 block carries no checksum, so the store prefixes
// the CRC-32C of the decoded body; zstd frames carry their own content checksum:
// either way a damaged body is an error on read, never wrong bytes. Compression runs
// on the caller's goroutine in SavePage, not on the writer, so it spreads over the
// engine's lanes while the single writer only does SQL. Databases written before
// kept zlib (codec 1) and zstd for small bodies too; those bodies still read.
const (
	Raw  = 0 // body stored as is (empty, or compression did not help)
	Zlib = 1 // read only: bodies of databases written before codec 2
	Zstd = 2
	S2   = 3 // CRC-32C of the decoded body (4 bytes, little-endian), then an S2 block
)

// castagnoli is the CRC-32C table (hardware-assisted on amd64 and arm64).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// zstdEnc and zstdDec are shared: EncodeAll and DecodeAll are safe for concurrent use
// and keep a small pool of (de)compressors inside. Those keep buffers as large as the
// largest body they handled, so bodies above sharedMax get a one-off (de)compressor
// instead: memory stays bounded by a few MiB whatever the crawl fetched.
var (
	zstdEnc = newZstdEncoder(0)
	zstdDec = newZstdDecoder(0)
)

// smallBody is the size under which a body is an S2 block rather than a zstd frame.
const smallBody = 8 << 10

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
	dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxBody), zstd.WithDecoderConcurrency(concurrency))
	if err != nil {
		panic(err) // only for invalid options, which are constants here
	}
	return dec
}

// Compress returns the body to store and its codec: a new slice of the compressed
// size exactly (it waits in the writer's queue, so a roomy one would hold memory),
// compressed into a pooled scratch buffer first.
func Compress(body []byte) ([]byte, int) {
	if len(body) == 0 {
		return nil, Raw
	}
	scratch := bodyScratch.Get().(*[]byte)
	var out []byte
	codec := Zstd
	if len(body) < smallBody {
		out, codec = encodeS2(body, (*scratch)[:0]), S2
	} else {
		enc := zstdEnc
		if len(body) > sharedMax {
			enc = newZstdEncoder(1)
			defer enc.Close()
		}
		out = enc.EncodeAll(body, (*scratch)[:0])
	}
	defer func() {
		if cap(out) <= sharedMax {
			*scratch = out[:0]
			bodyScratch.Put(scratch)
		}
	}()
	if len(out) >= len(body) {
		// e.g. an already-compressed image: keep it as is (copied: the caller may
		// reuse its buffer once SavePage returns).
		return bytes.Clone(body), Raw
	}
	return bytes.Clone(out), codec
}

// encodeS2 appends body's codec 3 form to dst: its CRC-32C, then its S2 block.
func encodeS2(body, dst []byte) []byte {
	n := 4 + s2.MaxEncodedLen(len(body))
	if cap(dst) < n {
		dst = make([]byte, 0, n)
	}
	dst = binary.LittleEndian.AppendUint32(dst[:0], crc32.Checksum(body, castagnoli))
	block := s2.Encode(dst[4:n], body)
	return dst[:4+len(block)]
}

// errDamaged is what a body that fails its checksum or does not decode reads as.
var errDamaged = errors.New("damaged body (checksum or block does not match)")

// decodeS2 reverses encodeS2, refusing a block whose claimed size passes maxBody or
// whose content does not match its checksum.
func decodeS2(stored []byte) ([]byte, error) {
	if len(stored) < 4 {
		return nil, errDamaged
	}
	n, err := s2.DecodedLen(stored[4:])
	if err != nil || n > maxBody {
		return nil, errDamaged
	}
	out, err := s2.Decode(make([]byte, n), stored[4:])
	if err != nil || crc32.Checksum(out, castagnoli) != binary.LittleEndian.Uint32(stored) {
		return nil, errDamaged
	}
	return out, nil
}

// maxBody bounds the size a damaged stored body may claim to decode to.
const maxBody = 1 << 30

// bodyScratch holds Compress's scratch buffers (*[]byte), up to sharedMax each.
var bodyScratch = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// Decompress reverses Compress, and reads zlib bodies of older databases.
func Decompress(stored []byte, codec int, sizeHint int64) ([]byte, error) {
	var capHint int
	if sizeHint > 0 && sizeHint < maxBody {
		capHint = int(sizeHint)
	}
	switch codec {
	case Raw:
		return stored, nil
	case S2:
		return decodeS2(stored)
	case Zstd:
		dec := zstdDec
		if capHint > sharedMax || len(stored) > sharedMax {
			dec = newZstdDecoder(1)
			defer dec.Close()
		}
		return dec.DecodeAll(stored, make([]byte, 0, capHint))
	case Zlib:
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
