package fetch

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	neturl "net/url"
	"strings"

	whatwg "github.com/nlnwa/whatwg-url/url"
	"golang.org/x/net/html/charset"

	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// The request path of a page fetch: one GET through the egress's client, the final
// response's headers read before its body (onHeaders may refuse the body unread),
// the body read whole under the cap, then handed to onResponse. It does what the
// colly collector this package used did for it, no more: the same URL reading, the
// same charset conversion, the same errors for the same failures.

// urlParser reads a URL the frontier did not hand out in canonical form as a
// browser would ('%' not followed by two hex digits is taken as "%25").
var urlParser = whatwg.NewParser(whatwg.WithPercentEncodeSinglePercentSign())

// errBodyRefused ends a fetch whose body onHeaders refused (exchange.kind says why).
var errBodyRefused = errors.New("fetch: body not read: refused on its headers")

// requestURL is the URL a GET for raw is sent to. The frontier's URLs are canonical
// already (and read the same to the WHATWG parser and net/url); anything else is
// read by the WHATWG parser and written back.
func requestURL(raw string) (string, error) {
	if frontier.IsCanonical(raw) {
		return raw, nil
	}
	u, err := urlParser.Parse(raw)
	if err != nil {
		return "", err
	}
	pu, err := neturl.Parse(u.Href(false))
	if err != nil {
		return "", err
	}
	return pu.String(), nil
}

// get GETs rawURL with the headers h into x: status and headers (onHeaders), then
// the body (onResponse). A failure with no usable response is returned.
func (f *Fetcher) get(x *exchange, rawURL string, h http.Header) error {
	target, err := requestURL(rawURL)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(f.ctx, http.MethodGet, target, nil)
	if err != nil {
		return err
	}
	req.Header = h
	if host := h.Get("Host"); host != "" {
		req.Host = host // net/http sends Request.Host, not a Host header
	}
	if h.Get("Accept") == "" {
		h.Set("Accept", "*/*")
	}
	res, err := f.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close() // unread when refused: the download stops there
	final := req
	if res.Request != nil {
		final = res.Request // after the redirects followed
	}
	if !f.onHeaders(x, final, res) {
		return errBodyRefused
	}
	body, err := readBody(res, int64(f.cfg.MaxBodyBytes)+1)
	if err != nil {
		return err
	}
	if body, err = toUTF8(body, res.Header.Get("Content-Type")); err != nil {
		return err
	}
	f.onResponse(x, res.StatusCode, res.Header, body)
	return nil
}

// readBody reads at most limit bytes of a response's body (bodyCapper has already
// refused one past the fetch's cap), in one buffer sized by Content-Length when the
// response gives one.
func readBody(res *http.Response, limit int64) ([]byte, error) {
	size := int64(512)
	if cl := res.ContentLength; cl > 0 && cl < limit {
		size = cl + 1 // room for the read that sees EOF
	}
	r := io.LimitReader(res.Body, limit)
	b := make([]byte, 0, size)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// toUTF8 converts a text body whose Content-Type names a charset other than UTF-8
// into UTF-8 (golang.org/x/net/html/charset); other bodies are returned as they are.
func toUTF8(body []byte, contentType string) ([]byte, error) {
	ct := strings.ToLower(contentType)
	if len(body) == 0 || !strings.Contains(ct, "charset") || strings.Contains(ct, "utf-8") || strings.Contains(ct, "utf8") {
		return body, nil
	}
	for _, media := range []string{"image/", "video/", "audio/", "font/"} {
		if strings.Contains(ct, media) {
			return body, nil // no text in these
		}
	}
	r, err := charset.NewReader(bytes.NewReader(body), ct)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}
