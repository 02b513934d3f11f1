package egress

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"time"
)

// httpConnect performs an HTTP/1.1 CONNECT to target over c (already connected to
// the proxy) and returns the connection to use afterwards and the proxy's status.
// The context bounds the whole exchange. Errors describe the protocol step only.
func httpConnect(ctx context.Context, c net.Conn, target, user string, secret Secret) (net.Conn, int, error) {
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
		defer c.SetDeadline(time.Time{})
	}
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	req := "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n"
	if user != "" {
		cred := base64.StdEncoding.EncodeToString([]byte(user + ":" + secret.Reveal()))
		req += "Proxy-Authorization: Basic " + cred + "\r\n"
	}
	req += "\r\n"
	if _, err := c.Write([]byte(req)); err != nil {
		return nil, 0, ctxErr(ctx, err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		return nil, 0, ctxErr(ctx, errors.New("unreadable CONNECT reply: "+shortErr(err)))
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, resp.StatusCode, nil
	}
	if br.Buffered() > 0 {
		// The proxy sent tunnel bytes along with its reply; keep them.
		return &bufferedConn{Conn: c, r: br}, resp.StatusCode, nil
	}
	return c, resp.StatusCode, nil
}

// ctxErr prefers the context's reason (timeout, cancel) over the I/O error it caused.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// shortErr keeps parse errors short: net/http quotes the offending line, which for
// a garbage reply can be long binary noise.
func shortErr(err error) string {
	s := err.Error()
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return s
}

// bufferedConn is a conn whose first bytes were already read into r.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }
