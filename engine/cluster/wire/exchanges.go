package wire

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/fetch"
)

// A result's exchanges (the request and response heads of each hop, for the WARC
// export) travel in the frame's binary part, between the JSON header and the body:
// as JSON their CRLF-laden heads doubled the master's decoding cost per page
// (`go run ./bench distributed`, wire codec 19 → 44 µs). Each exchange is its
// strings, each a uvarint length and the bytes, then its status (uvarint), the time
// its response came (varint Unix ns, 0 for none) and whether its body was cut (and,
// for a body that failed mid-read, why: cutByte).

// maxWireExchanges bounds the hops a result may carry (fetch.max_redirects is small).
const maxWireExchanges = 64

// appendExchanges encodes xs after b.
func appendExchanges(b []byte, xs []fetch.Exchange) []byte {
	b = binary.AppendUvarint(b, uint64(len(xs)))
	for i := range xs {
		x := &xs[i]
		for _, s := range []string{x.URL, x.RequestHead, x.StatusLine, x.ResponseHead, x.RemoteIP, x.Decoded} {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
		b = binary.AppendUvarint(b, uint64(len(x.Body)))
		b = append(b, x.Body...)
		b = binary.AppendUvarint(b, uint64(x.Status))
		var at int64
		if !x.At.IsZero() {
			at = x.At.UnixNano()
		}
		b = binary.AppendVarint(b, at)
		b = append(b, cutByte(x))
	}
	return b
}

// cutReasons are the values of an exchange's cut byte after 0 (whole) and 1 (cut):
// a body that failed mid-read, by its WARC-Truncated reason (Exchange.Failed).
var cutReasons = [...]string{0: "", 1: "", 2: fetch.TruncatedTime, 3: fetch.TruncatedDisconnect, 4: fetch.TruncatedUnspecified}

// cutByte is x's cut byte: 0 whole, 1 cut, 2 and up cut by a failure (cutReasons).
func cutByte(x *fetch.Exchange) byte {
	if !x.BodyCut {
		return 0
	}
	for i := 2; i < len(cutReasons); i++ {
		if cutReasons[i] == x.Failed {
			return byte(i)
		}
	}
	if x.Failed != "" {
		return 4 // a reason this codec does not name: unspecified
	}
	return 1
}

var errExchanges = errors.New("bad exchanges")

// readExchanges decodes what appendExchanges wrote, at most limit exchanges; b
// must hold exactly that.
func readExchanges(b []byte, limit int) ([]fetch.Exchange, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(limit) {
		return nil, errExchanges
	}
	b = b[k:]
	bytesField := func() ([]byte, error) {
		l, k := binary.Uvarint(b)
		if k <= 0 || l > uint64(len(b)-k) {
			return nil, errExchanges
		}
		v := b[k : k+int(l)]
		b = b[k+int(l):]
		return v, nil
	}
	xs := make([]fetch.Exchange, n)
	for i := range xs {
		x := &xs[i]
		for _, dst := range []*string{&x.URL, &x.RequestHead, &x.StatusLine, &x.ResponseHead, &x.RemoteIP, &x.Decoded} {
			v, err := bytesField()
			if err != nil {
				return nil, err
			}
			*dst = string(v)
		}
		body, err := bytesField()
		if err != nil {
			return nil, err
		}
		if len(body) > 0 {
			x.Body = append([]byte(nil), body...)
		}
		st, k := binary.Uvarint(b)
		if k <= 0 || st > 999 {
			return nil, errExchanges
		}
		x.Status, b = int(st), b[k:]
		at, k := binary.Varint(b)
		if k <= 0 {
			return nil, errExchanges
		}
		if b = b[k:]; at != 0 {
			x.At = time.Unix(0, at)
		}
		if len(b) < 1 || int(b[0]) >= len(cutReasons) {
			return nil, errExchanges
		}
		x.BodyCut, x.Failed, b = b[0] != 0, cutReasons[b[0]], b[1:]
	}
	if len(b) != 0 {
		return nil, errExchanges
	}
	return xs, nil
}
