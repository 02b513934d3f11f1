package cluster

import (
	"errors"
	"strings"
	"testing"
)

// testResult stands in for a crawl result: it checks its own fields.
type testResult struct {
	URL     string `json:"url"`
	Status  int    `json:"status"`
	BodyLen int    `json:"body_len"`
	Body    []byte `json:"body"`
	Links   []struct {
		Href string `json:"href"`
	} `json:"links,omitempty"`
}

// Validate refuses results a worker could not have produced honestly.
func (r *testResult) Validate() error {
	switch {
	case r.URL == "":
		return errors.New("no url")
	case r.Status < 100 || r.Status > 599:
		return errors.New("status out of range")
	case r.BodyLen != len(r.Body):
		return errors.New("body_len does not match the body")
	}
	return nil
}

func TestCodecRoundTrip(t *testing.T) {
	in := testResult{URL: "http://a.test/", Status: 200, BodyLen: 3, Body: []byte("abc")}
	data, err := Encode(&in)
	if err != nil {
		t.Fatal(err)
	}
	var out testResult
	if err := Decode(data, &out, 1<<20); err != nil {
		t.Fatalf("Decode(Encode(x)): %v", err)
	}
	if out.URL != in.URL || string(out.Body) != "abc" {
		t.Fatalf("round trip gave %+v", out)
	}
	if _, err := Encode(func() {}); err == nil {
		t.Fatal("Encode(func) succeeded")
	}
}

func TestDecodeRejects(t *testing.T) {
	const max = 1 << 20
	valid := `{"url":"http://a.test/","status":200,"body_len":3,"body":"YWJj"}`
	tests := []struct {
		name, data string
		size       int // when > 0, data is this many bytes of a valid-looking prefix
		reason     string
	}{
		{name: "empty", data: "", reason: ReasonMalformed},
		{name: "truncated", data: valid[:len(valid)/2], reason: ReasonMalformed},
		{name: "one byte short", data: valid[:len(valid)-1], reason: ReasonMalformed},
		{name: "not json", data: "GET / HTTP/1.1", reason: ReasonMalformed},
		{name: "array", data: `[1,2,3]`, reason: ReasonMalformed},
		{name: "string", data: `"tasks"`, reason: ReasonMalformed},
		{name: "unknown field", data: `{"url":"http://a.test/","status":200,"admin":true}`, reason: ReasonMalformed},
		{name: "wrong type status", data: `{"url":"http://a.test/","status":"200"}`, reason: ReasonMalformed},
		{name: "wrong type body", data: `{"url":"http://a.test/","status":200,"body":12}`, reason: ReasonMalformed},
		{name: "bad base64", data: `{"url":"http://a.test/","status":200,"body":"!!!"}`, reason: ReasonMalformed},
		{name: "number overflow", data: `{"url":"x","status":1e400}`, reason: ReasonMalformed},
		{name: "trailing data", data: valid + `{"url":"y"}`, reason: ReasonMalformed},
		{name: "trailing garbage", data: valid + "}", reason: ReasonMalformed},
		{name: "nested garbage", data: `{"url":"x","links":[{"href":{"a":[[[[{"b":null}]]]]}}]}`, reason: ReasonMalformed},
		{name: "deep nesting", data: `{"links":` + strings.Repeat("[", 200000) + strings.Repeat("]", 200000) + "}", reason: ReasonMalformed},
		{name: "invalid utf8 key", data: "{\"\xff\":1}", reason: ReasonMalformed},
		{name: "null", data: `null`, reason: ReasonInvalid},
		{name: "empty object", data: `{}`, reason: ReasonInvalid},
		{name: "100 MB body claim", data: `{"url":"http://a.test/","status":200,"body_len":104857600,"body":"YWJj"}`, reason: ReasonInvalid},
		{name: "status out of range", data: `{"url":"http://a.test/","status":999,"body_len":0}`, reason: ReasonInvalid},
		{name: "just over the limit", size: max + 1, reason: ReasonOversize},
		{name: "100 MB message", size: 100 << 20, reason: ReasonOversize},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.data)
			if tc.size > 0 {
				data = make([]byte, tc.size)
				copy(data, valid)
			}
			var r testResult
			err := Decode(data, &r, max)
			if err == nil {
				t.Fatalf("Decode accepted %.60q", data)
			}
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("err = %v; want it to wrap ErrMalformed", err)
			}
			if got := Reason(err); got != tc.reason {
				t.Fatalf("Reason(%v) = %q; want %q", err, got, tc.reason)
			}
		})
	}
}

func TestDecodeLimits(t *testing.T) {
	valid := []byte(`{"url":"http://a.test/","status":200,"body_len":0}`)
	tests := []struct {
		name string
		max  int
		ok   bool
	}{
		{"exactly the limit", len(valid), true},
		{"one under", len(valid) - 1, false},
		{"no limit", 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r testResult
			err := Decode(valid, &r, tc.max)
			if (err == nil) != tc.ok {
				t.Fatalf("Decode with max %d: err = %v; want ok=%v", tc.max, err, tc.ok)
			}
		})
	}
}

func TestDecodeNonPointerIsNotAMessageFault(t *testing.T) {
	var r testResult
	err := Decode([]byte(`{}`), r, 0)
	if err == nil || errors.Is(err, ErrMalformed) {
		t.Fatalf("err = %v; want a programming error, not ErrMalformed", err)
	}
	if Reason(nil) != "" {
		t.Fatal(`Reason(nil) != ""`)
	}
}
