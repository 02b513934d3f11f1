package engine

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// A page whose server floods response headers fails under headers_too_large,
// counted once, and the log names its URL and says what the server did; the
// site's other pages are stored.
func TestHeaderFloodIsCountedAndLogged(t *testing.T) {
	t.Parallel()
	host := serveOn(t, "127.0.0.1", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<html><body><a href="/flood">flood</a> <a href="/fine">fine</a></body></html>`)
		case "/flood":
			for i := range 30_000 { // 2.4 MB of headers
				w.Header().Add(fmt.Sprintf("X-Filler-%d", i), strings.Repeat("f", 64))
			}
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><body>flood</body></html>")
		case "/fine":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><body>fine</body></html>")
		default:
			http.NotFound(w, r)
		}
	}))
	e := startEngine(t, robotsOptions(t, "http://"+host+"/"))
	waitFor(t, "the three pages ended", func() bool { return e.Stats().URLsDone >= 3 })
	st := e.Stats()
	if st.Errors["headers_too_large"] != 1 || st.PagesStored != 2 {
		t.Fatalf("errors %v, %d pages stored; want headers_too_large=1 and the two other pages", st.Errors, st.PagesStored)
	}
	want := "headers_too_large: http://" + host + "/flood (the server sent over 1 MiB of response headers: not read further)"
	for _, ev := range e.EventsSince(0, 1000) {
		if ev.Msg == want {
			return
		}
	}
	t.Errorf("no log line %q", want)
}
