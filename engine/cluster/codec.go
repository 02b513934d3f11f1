package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Decode's errors all wrap ErrMalformed, so a receiver can count and drop any bad
// message with one check; ErrOversize and ErrInvalid tell two causes apart.
var (
	// ErrMalformed marks a message that cannot be used: too big, not JSON, unknown
	// fields, wrong types, or failing its own Validate.
	ErrMalformed = errors.New("malformed message")
	// ErrOversize marks a message larger than the receiver's limit; it was not parsed.
	ErrOversize = errors.New("message too large")
	// ErrInvalid marks well-formed JSON whose value failed its Validate method.
	ErrInvalid = errors.New("message failed validation")
)

// Validator is implemented by messages that check their own fields after decoding
// (a task with no URL, a result whose body exceeds what it claims, ...).
type Validator interface {
	Validate() error
}

// Encode marshals a message for the wire.
func Encode(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("cluster: encode %T: %w", v, err)
	}
	return data, nil
}

// Decode unmarshals data into v, a pointer. Data longer than max bytes (when max > 0)
// is refused before parsing; unknown fields, trailing data and a failing Validate are
// errors too. Every such error wraps ErrMalformed; see Reason.
func Decode(data []byte, v any, max int) error {
	if max > 0 && len(data) > max {
		return fmt.Errorf("cluster: %w: %w: %d bytes, limit %d", ErrMalformed, ErrOversize, len(data), max)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var target *json.InvalidUnmarshalError
		if errors.As(err, &target) {
			return fmt.Errorf("cluster: decode: %w", err) // a programming error, not a bad message
		}
		return fmt.Errorf("cluster: %w: %T: %w", ErrMalformed, v, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("cluster: %w: %T: data after the JSON value", ErrMalformed, v)
	}
	if val, ok := v.(Validator); ok {
		if err := val.Validate(); err != nil {
			return fmt.Errorf("cluster: %w: %w: %T: %w", ErrMalformed, ErrInvalid, v, err)
		}
	}
	return nil
}

// Reason names the rejection counter for a Decode error: "oversize", "invalid" or
// "malformed"; "" for nil.
func Reason(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrOversize):
		return ReasonOversize
	case errors.Is(err, ErrInvalid):
		return ReasonInvalid
	default:
		return ReasonMalformed
	}
}
