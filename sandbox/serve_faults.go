package sandbox

import (
	"context"
	"html"
	"math"
	"net"
	"net/http"
	"strconv"
	"time"
)

// Transport-level behaviour: faults that need the connection (reset, slow, trickle,
// huge) and the answers of a host that refuses a client (ban pages, quotas).

// resetConn hijacks the connection and closes it with SO_LINGER 0, so the client sees a
// TCP reset rather than a clean end of stream.
func resetConn(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return // cannot happen on HTTP/1.1; the client then gets an empty 200
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0) //nolint:errcheck // best effort: a plain close is still a fault
	}
	conn.Close()
}

// sleepCtx waits d or until ctx ends; it reports whether the full wait elapsed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// trickle sends the body TrickleChunk bytes at a time, TrickleInterval apart.
func (s *Sandbox) trickle(w http.ResponseWriter, r *http.Request, resp response, x *exchange) {
	w.Header()["Content-Length"] = []string{strconv.Itoa(len(resp.body))}
	w.WriteHeader(resp.status)
	rc := http.NewResponseController(w)
	body := resp.body
	for len(body) > 0 {
		n := min(s.cfg.Faults.TrickleChunk, len(body))
		if n == len(body) {
			x.finish(resp.status)
		}
		if _, err := w.Write(body[:n]); err != nil {
			break
		}
		if body = body[n:]; len(body) == 0 {
			break
		}
		rc.Flush() //nolint:errcheck // a gone client shows on the next Write
		if !sleepCtx(r.Context(), s.cfg.Faults.TrickleInterval) {
			break
		}
	}
	x.finish(resp.status) // cut short: the client left
}

// hugeFiller is the repeated part of a huge body: plausible HTML, so a crawler cannot
// tell it from a real page before it has read too much.
var hugeFiller = func() []byte {
	var b []byte
	for len(b) < 64<<10 {
		b = append(b, "<p>Archive record: minutes of the board, appendix, tables and figures, continued. "...)
		b = append(b, "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.</p>\n"...)
	}
	return b
}()

func hugeHead(p page) string {
	return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Complete archive — " +
		html.EscapeString(p.h.site.Name) + "</title></head><body><h1>Complete archive</h1>\n"
}

// appendHugeBlock gives Render the start of a huge body (the first 64 KiB).
func appendHugeBlock(buf []byte, p page, _ int) []byte {
	buf = append(buf, hugeHead(p)...)
	return append(buf, hugeFiller[:64<<10-len(buf)]...)
}

// streamHuge streams HugeBytes of HTML without a Content-Length, from one shared
// block, so no memory grows with the body.
func (s *Sandbox) streamHuge(w http.ResponseWriter, r *http.Request, p page, x *exchange) {
	defer x.finish(http.StatusOK) // cut short: the client left
	delete(w.Header(), "Content-Length")
	w.WriteHeader(http.StatusOK)
	head := hugeHead(p)
	if _, err := w.Write([]byte(head)); err != nil {
		return
	}
	// Without a length, the body ends with the terminating chunk net/http sends after
	// the handler returns, so finishing before the last block is early enough.
	left := s.cfg.Faults.HugeBytes - int64(len(head))
	for left > 0 && r.Context().Err() == nil {
		n := int64(len(hugeFiller))
		if n >= left {
			n = left
			x.finish(http.StatusOK)
		}
		if _, err := w.Write(hugeFiller[:n]); err != nil {
			break
		}
		left -= n
	}
}

// retryAfterSeconds formats a real wait as whole seconds, at least 1.
func retryAfterSeconds(d time.Duration) string {
	sec := int(math.Ceil(d.Seconds()))
	if sec < 1 {
		sec = 1
	}
	return strconv.Itoa(sec)
}

// serveBan answers a banned client the way its host does: 403 deny page, 429 with
// Retry-After, or a 200 captcha page (which a naive crawler takes for content).
func (s *Sandbox) serveBan(w http.ResponseWriter, x *exchange, until time.Time) {
	hdr := w.Header()
	hdr["Content-Type"] = hdrHTML
	hdr["Cache-Control"] = hdrNoCache
	switch x.h.banStyle {
	case banDeny:
		x.finish(http.StatusForbidden)
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte("<!DOCTYPE html><html><head><title>Access denied</title></head><body><h1>Access denied</h1><p>Your address has been blocked because of unusual traffic from your network.</p></body></html>\n")) //nolint:errcheck // client may be gone
	case banTooMany:
		hdr["Retry-After"] = []string{retryAfterSeconds(time.Until(until))}
		x.finish(http.StatusTooManyRequests)
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte("<!DOCTYPE html><html><head><title>Too many requests</title></head><body><h1>Too many requests</h1><p>Slow down.</p></body></html>\n")) //nolint:errcheck // client may be gone
	default:
		x.finish(http.StatusOK)
		w.WriteHeader(http.StatusOK)
		w.Write([]byte("<!DOCTYPE html><html><head><title>Verify you are human</title></head><body><h1>Verify you are human</h1><p>Please complete the captcha to continue.</p><form method=\"post\" action=\"/captcha\"><img src=\"/captcha.png\" alt=\"captcha\"><input name=\"answer\"><button>Continue</button></form></body></html>\n")) //nolint:errcheck // client may be gone
	}
}

// serveLimited answers a request past a quota: 429 with Retry-After.
func serveLimited(w http.ResponseWriter, x *exchange, retry time.Duration) {
	hdr := w.Header()
	hdr["Content-Type"] = hdrHTML
	hdr["Retry-After"] = []string{retryAfterSeconds(retry)}
	x.finish(http.StatusTooManyRequests)
	w.WriteHeader(http.StatusTooManyRequests)
	w.Write([]byte("<!DOCTYPE html><html><head><title>Rate limit exceeded</title></head><body><h1>Rate limit exceeded</h1><p>You have made too many requests. Try again later.</p></body></html>\n")) //nolint:errcheck // client may be gone
}
