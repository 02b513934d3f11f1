package attach

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"
	"github.com/nats-io/nats.go"

	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Server answers a remote console's requests for one control.Control.
type Server struct {
	nc   *nats.Conn
	ctrl control.Control
	subs []*nats.Subscription

	// mu is held for reading while a request is served; Stop takes it for writing,
	// so once Stop returns no handler touches ctrl any more.
	mu      sync.RWMutex
	stopped bool

	served   atomic.Int64
	rejected atomic.Int64
}

// ServerStats count the requests a Server answered.
type ServerStats struct {
	Served   int64 // requests answered with what they asked for (a control error included)
	Rejected int64 // requests refused: over MaxRequest, malformed, unknown op, or serving them failed
}

// Pending limits of each subscription: requests waiting while the master is busy.
// A console asks one snapshot at a time, so a long queue is a flood, not a console.
const (
	pendingMsgs  = 256
	pendingBytes = 8 << 20
)

// Serve answers PREFIX.console.snapshot, .events and .control on nc with ctrl until
// stop is called. stop waits for requests being served and is safe to call twice.
func Serve(nc *nats.Conn, prefix string, ctrl control.Control) (stop func(), err error) {
	s, err := Listen(nc, prefix, ctrl)
	if err != nil {
		return nil, err
	}
	return s.Stop, nil
}

// Listen is Serve returning the Server, for its Stats.
func Listen(nc *nats.Conn, prefix string, ctrl control.Control) (*Server, error) {
	if nc == nil || ctrl == nil {
		return nil, errors.New("attach: Serve needs a NATS connection and a Control")
	}
	subj, err := subjectsOf(prefix)
	if err != nil {
		return nil, err
	}
	s := &Server{nc: nc, ctrl: ctrl}
	for _, h := range []struct {
		subject string
		serve   func([]byte) ([]byte, error)
	}{
		{subj.snapshot, s.snapshot},
		{subj.events, s.events},
		{subj.control, s.control},
	} {
		sub, err := nc.Subscribe(h.subject, s.handler(h.serve))
		if err == nil {
			err = sub.SetPendingLimits(pendingMsgs, pendingBytes)
		}
		if err != nil {
			s.Stop()
			return nil, fmt.Errorf("attach: subscribe %s: %w", h.subject, err)
		}
		s.subs = append(s.subs, sub)
	}
	// The subscriptions are live on the server once Serve returns.
	if err := nc.Flush(); err != nil {
		s.Stop()
		return nil, fmt.Errorf("attach: %w", err)
	}
	return s, nil
}

// Stop unsubscribes and waits for requests being served.
func (s *Server) Stop() {
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	for _, sub := range s.subs {
		_ = sub.Unsubscribe() // fails only on a closed connection, where nothing arrives anyway
	}
}

// Stats returns the request counters.
func (s *Server) Stats() ServerStats {
	return ServerStats{Served: s.served.Load(), Rejected: s.rejected.Load()}
}

// badRequest is an error in the request itself (400), not in serving it (500).
type badRequest struct{ error }

func bad(err error) error { return badRequest{err} }

// handler wraps one subject's serve func: size limit, panics, replies, counters.
func (s *Server) handler(serve func([]byte) ([]byte, error)) nats.MsgHandler {
	return func(m *nats.Msg) {
		s.mu.RLock()
		defer s.mu.RUnlock()
		if s.stopped || m.Reply == "" {
			return // a publish without a reply subject asks nothing
		}
		if len(m.Data) > MaxRequest {
			s.refuse(m, bad(fmt.Errorf("request of %d bytes is over the %d byte limit", len(m.Data), MaxRequest)))
			return
		}
		body, err := protect(serve, m.Data)
		if err != nil {
			s.refuse(m, err)
			return
		}
		if err := s.reply(m, body, nil); err != nil {
			s.refuse(m, err)
			return
		}
		s.served.Add(1)
	}
}

// protect runs serve, turning a panic (in the Control, say) into an error: a bad
// request must never take the master down.
func protect(serve func([]byte) ([]byte, error), data []byte) (body []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			body, err = nil, fmt.Errorf("internal error: %v", r)
		}
	}()
	return serve(data)
}

// refuse answers a request that could not be served and counts it.
func (s *Server) refuse(m *nats.Msg, err error) {
	s.rejected.Add(1)
	body, _ := json.Marshal(controlReply{Error: err.Error()})
	code := "500"
	if errors.As(err, new(badRequest)) {
		code = "400"
	}
	h := nats.Header{}
	h.Set(errorHeader, err.Error())
	h.Set(errorCodeHeader, code)
	_ = s.reply(m, body, h) // the requester times out if even this cannot go
}

// reply sends body, compressed if it would not fit the connection's max payload.
func (s *Server) reply(m *nats.Msg, body []byte, h nats.Header) error {
	limit := int(s.nc.MaxPayload()) - 4096 // room for the headers
	if len(body) > limit {
		body = zstdEnc.EncodeAll(body, make([]byte, 0, len(body)/8))
		if len(body) > limit {
			return fmt.Errorf("reply of %d bytes (compressed) is over the connection's max payload", len(body))
		}
		if h == nil {
			h = nats.Header{}
		}
		h.Set(encodingHeader, encodingZstd)
	}
	if !s.nc.HeadersSupported() {
		h = nil
	}
	return m.RespondMsg(&nats.Msg{Subject: m.Reply, Data: body, Header: h})
}

// zstdEnc compresses big replies; EncodeAll is safe for concurrent use.
var zstdEnc = func() *zstd.Encoder {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest))
	if err != nil {
		panic(err) // only for invalid options, which are constants here
	}
	return enc
}()

func (s *Server) snapshot(data []byte) ([]byte, error) {
	if len(data) > 0 && !json.Valid(data) {
		return nil, bad(errors.New("malformed request: a snapshot request is empty"))
	}
	return marshalFinite(s.ctrl.Snapshot())
}

func (s *Server) events(data []byte) ([]byte, error) {
	var req eventsRequest
	if err := decodeStrict(data, &req); err != nil {
		return nil, bad(err)
	}
	if req.Max < 1 {
		return nil, bad(fmt.Errorf("max must be at least 1, not %d", req.Max))
	}
	evs := s.ctrl.EventsSince(req.After, min(req.Max, maxEvents))
	if evs == nil {
		evs = []view.Event{} // "[]": the reply is always the list
	}
	return marshalFinite(evs)
}

func (s *Server) control(data []byte) ([]byte, error) {
	o, args, err := parseControl(data)
	if err != nil {
		return nil, bad(err)
	}
	result, err := o.run(s.ctrl, args)
	var rep controlReply
	if err != nil {
		rep.Error = err.Error()
	} else if result != nil {
		if rep.Result, err = marshalFinite(result); err != nil {
			return nil, err
		}
	}
	return json.Marshal(rep)
}

// marshalFinite is json.Marshal, with NaN and ±Inf (which JSON cannot carry) sent
// as 0 rather than failing the whole reply: one odd ratio must not blank the remote
// console.
func marshalFinite(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if _, odd := err.(*json.UnsupportedValueError); !odd {
		return b, err
	}
	return json.Marshal(finite(reflect.ValueOf(v)).Interface())
}

// finite returns a deep copy of v with every NaN and ±Inf float set to 0. v itself
// is left alone: a snapshot may share slices with the engine's caches.
func finite(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return reflect.Zero(v.Type())
		}
	case reflect.Pointer:
		if !v.IsNil() {
			c := reflect.New(v.Type().Elem())
			c.Elem().Set(finite(v.Elem()))
			return c
		}
	case reflect.Interface:
		if !v.IsNil() {
			c := reflect.New(v.Type()).Elem()
			c.Set(finite(v.Elem()))
			return c
		}
	case reflect.Struct:
		c := reflect.New(v.Type()).Elem()
		c.Set(v) // unexported fields (a time.Time's) as they are
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				c.Field(i).Set(finite(v.Field(i)))
			}
		}
		return c
	case reflect.Array:
		c := reflect.New(v.Type()).Elem()
		for i := range v.Len() {
			c.Index(i).Set(finite(v.Index(i)))
		}
		return c
	case reflect.Slice:
		if !v.IsNil() {
			c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			for i := range v.Len() {
				c.Index(i).Set(finite(v.Index(i)))
			}
			return c
		}
	case reflect.Map:
		if !v.IsNil() {
			c := reflect.MakeMapWithSize(v.Type(), v.Len())
			for it := v.MapRange(); it.Next(); {
				c.SetMapIndex(it.Key(), finite(it.Value()))
			}
			return c
		}
	}
	return v
}
