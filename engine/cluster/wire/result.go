package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/store/model"
)

// Result is one task's outcome, as the worker's lane produced it: a response, or a
// failure's kind.
type Result struct {
	Node        string        `json:"node"`
	Incarnation string        `json:"inc"`
	Task        frontier.Task `json:"task"`
	Lane        int           `json:"lane"`
	Egress      string        `json:"egress"`
	Kind        string        `json:"kind,omitempty"`
	Res         *fetch.Result `json:"res,omitempty"`
	At          time.Time     `json:"at"`
	// ExchangesLen is the length of the encoded exchanges between the JSON header
	// and the body (exchanges.go); 0 for none. They are Res's, or, with no Res, Hops.
	ExchangesLen int `json:"xl,omitempty"`
	// Hops are the responses a failed fetch received, in the frame's binary part
	// like a response's exchanges.
	Hops []fetch.Exchange `json:"-"`
	// RenderLen and DOMLen are the lengths of a rendered page's own requests
	// (Res.Render.Sub, encoded as exchanges) and of its rendered DOM
	// (Res.Render.DOM), after the exchanges and before the body; 0 for none. The
	// master archives them as a one-box crawl does (WARC request, response and
	// conversion records).
	RenderLen int `json:"rxl,omitempty"`
	DOMLen    int `json:"doml,omitempty"`
	// Refusals are the refusals the worker acted on since its last report, for the
	// master's store: `show URL` on the master says why.
	Refusals []model.Refusal `json:"refusals,omitempty"`
	// BodyLen is the length of a body the frame carries compressed (zstd), 0 for
	// one carried as it is (EncodeResult).
	BodyLen int `json:"bl,omitempty"`
}

// Validate checks the sender, the task's lease, the refusals and that the result is
// a response or a failure, with a believable fetch time.
func (m *Result) Validate() error {
	if err := checkReport(m.Node, m.Incarnation, m.Task, m.Refusals); err != nil {
		return err
	}
	if m.Kind == "" && m.Res == nil {
		return errors.New("result with neither a response nor an error kind")
	}
	// The fetch time feeds the master's cost table: a negative or absurd one is refused.
	if m.Res != nil && (m.Res.Duration < 0 || m.Res.Duration > time.Hour) {
		return fmt.Errorf("result with a fetch time of %v", m.Res.Duration)
	}
	return nil
}

// Deferral is a worker setting a task aside until a time without fetching it (M3: a
// disabled host, robots.txt unreachable): the master defers the URL in its store and
// queues it again then. It is no result: the URL was neither fetched nor failed.
type Deferral struct {
	Node        string        `json:"node"`
	Incarnation string        `json:"inc"`
	Task        frontier.Task `json:"task"`
	Until       time.Time     `json:"until"`
	// Kind is what the URL counts under while set aside (robots_unreachable): the
	// master counts it and keeps it as an example, as one box does. Empty: it
	// counts under none (a host disabled or asking to wait), or an older worker.
	Kind string `json:"kind,omitempty"`
	// Behind is the host the operator holds that the URL's site waits behind (its
	// robots.txt redirects there): the master brings the URL back as that host's
	// hold ends, with the host's own. Empty: it waits for its own host, if any.
	Behind string `json:"behind,omitempty"`
	// Refusals are as a Result's: those since the worker's last report.
	Refusals []model.Refusal `json:"refusals,omitempty"`
}

// Validate checks the sender, the task's lease, the refusals and the time.
func (m *Deferral) Validate() error {
	if err := checkReport(m.Node, m.Incarnation, m.Task, m.Refusals); err != nil {
		return err
	}
	if m.Until.IsZero() {
		return errors.New("deferral without a time")
	}
	return nil
}

// checkReport checks what results and deferrals share.
func checkReport(node, inc string, t frontier.Task, refusals []model.Refusal) error {
	if err := checkNode(node, inc); err != nil {
		return err
	}
	if t.URL == "" || t.Lease == 0 {
		return errors.New("report without URL or lease")
	}
	if len(refusals) > MaxRefusals {
		return fmt.Errorf("report with %d refusals, at most %d", len(refusals), MaxRefusals)
	}
	for _, r := range refusals {
		if r.URL == "" || r.At.IsZero() {
			return errors.New("refusal without URL or time")
		}
	}
	return nil
}

// A result travels as a frame: a 4-byte big-endian length, the JSON of Result
// without the page body, then the exchanges and the body as raw bytes. Base64 inside
// JSON cost the master a third of its CPU per page (`go run ./bench distributed`).
const resultHeaderMax = 8 << 20 // the JSON part: headers, links, task

// EncodeResult frames a result for the wire.
func EncodeResult(r *Result) ([]byte, error) {
	var body, exchanges []byte
	meta := *r
	if r.Res != nil {
		res := *r.Res
		body, res.Body = res.Body, nil
		if len(res.Exchanges) > 0 {
			exchanges = appendExchanges(nil, res.Exchanges)
			res.Exchanges = nil
		}
		if rd := res.Render; rd != nil {
			if len(rd.Sub) > 0 {
				n := len(exchanges)
				exchanges = appendExchanges(exchanges, rd.Sub)
				meta.RenderLen = len(exchanges) - n
			}
			exchanges = append(exchanges, rd.DOM...)
			meta.DOMLen = len(rd.DOM)
		}
		meta.Res = &res
	} else if len(r.Hops) > 0 {
		exchanges = appendExchanges(nil, r.Hops)
	}
	meta.Hops = nil
	meta.ExchangesLen = len(exchanges) - meta.RenderLen - meta.DOMLen
	if len(body) >= compressFrom {
		if z := bodyEncoder.EncodeAll(body, nil); len(z) < len(body) {
			body, meta.BodyLen = z, len(body)
		}
	}
	js, err := cluster.Encode(&meta)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 4, 4+len(js)+len(exchanges)+len(body))
	binary.BigEndian.PutUint32(out, uint32(len(js)))
	out = append(append(append(out, js...), exchanges...), body...)
	return out, nil
}

// DecodeResult reads a frame; the body aliases data unless it travelled
// compressed. Errors wrap cluster.ErrMalformed, so the master counts and drops a
// bad one.
func DecodeResult(data []byte, r *Result) error {
	if len(data) < 4 {
		return fmt.Errorf("cluster: %w: result frame of %d bytes", cluster.ErrMalformed, len(data))
	}
	n := int(binary.BigEndian.Uint32(data))
	if n > len(data)-4 || n > resultHeaderMax {
		return fmt.Errorf("cluster: %w: result frame claims a %d-byte header in %d bytes", cluster.ErrMalformed, n, len(data))
	}
	if err := cluster.Decode(data[4:4+n], r, 0); err != nil {
		return err
	}
	body := data[4+n:]
	if xl := r.ExchangesLen; xl != 0 {
		if xl < 0 || xl > len(body) {
			return fmt.Errorf("cluster: %w: %w: %d bytes of exchanges in %d", cluster.ErrMalformed, cluster.ErrInvalid, xl, len(body))
		}
		xs, err := readExchanges(body[:xl], maxWireExchanges)
		if err != nil {
			return fmt.Errorf("cluster: %w: %w", cluster.ErrMalformed, err)
		}
		switch {
		case r.Res != nil:
			r.Res.Exchanges = xs
		case len(xs) > 0: // a failed fetch's hops (Validate: it has a kind)
			r.Hops = xs
		default:
			return fmt.Errorf("cluster: %w: %w: empty exchanges without a response", cluster.ErrMalformed, cluster.ErrInvalid)
		}
		body = body[xl:]
	}
	if err := decodeRender(r, &body); err != nil {
		return fmt.Errorf("cluster: %w: %w: %w", cluster.ErrMalformed, cluster.ErrInvalid, err)
	}
	if r.BodyLen != 0 {
		if r.Res == nil || r.BodyLen < 0 || r.BodyLen > MaxBodyLen {
			return fmt.Errorf("cluster: %w: %w: a compressed body of %d bytes", cluster.ErrMalformed, cluster.ErrInvalid, r.BodyLen)
		}
		plain, err := bodyDecoder.DecodeAll(body, make([]byte, 0, r.BodyLen))
		if err != nil || len(plain) != r.BodyLen {
			return fmt.Errorf("cluster: %w: %w: a compressed body of %d bytes read as %d (%v)", cluster.ErrMalformed, cluster.ErrInvalid, r.BodyLen, len(plain), err)
		}
		body, r.BodyLen = plain, 0
	}
	if len(body) > 0 {
		if r.Res == nil {
			return fmt.Errorf("cluster: %w: %w: a body without a response", cluster.ErrMalformed, cluster.ErrInvalid)
		}
		r.Res.Body = body
	}
	return nil
}

// A body of compressFrom bytes or more travels compressed (zstd, at its fastest
// level): the transport's message cap (16 MiB on the embedded server) is under
// the 50 MiB a sitemap may have (discovery.max_document_bytes), and XML shrinks
// several times over. Smaller bodies, nearly every page, go as they are: the
// master reads them without a decoding pass.
const compressFrom = 1 << 20

// MaxBodyLen bounds the decoded length a compressed body may claim: the largest
// discovery.max_document_bytes.
const MaxBodyLen = 1 << 30

var (
	bodyEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	bodyDecoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(MaxBodyLen))
)

// MaxRenderExchanges bounds the requests of a rendered page a result may carry
// (render.max_requests, 200 by default, and their redirects).
const MaxRenderExchanges = 1000

// decodeRender reads a rendered page's requests and DOM (RenderLen, DOMLen) off
// the front of *body into r.Res.Render.
func decodeRender(r *Result, body *[]byte) error {
	rl, dl := r.RenderLen, r.DOMLen
	if rl == 0 && dl == 0 {
		return nil
	}
	if r.Res == nil || r.Res.Render == nil {
		return errors.New("a render's requests or DOM without a rendered response")
	}
	if rl < 0 || dl < 0 || rl > len(*body) || dl > len(*body)-rl {
		return fmt.Errorf("%d bytes of render requests and %d of DOM in %d", rl, dl, len(*body))
	}
	rd := *r.Res.Render // the JSON's, never shared: a copy all the same
	if rl > 0 {
		xs, err := readExchanges((*body)[:rl], MaxRenderExchanges)
		if err != nil {
			return fmt.Errorf("render requests: %w", err)
		}
		rd.Sub = xs
	}
	if dl > 0 {
		rd.DOM = (*body)[rl : rl+dl]
	}
	r.Res.Render = &rd
	*body = (*body)[rl+dl:]
	return nil
}
