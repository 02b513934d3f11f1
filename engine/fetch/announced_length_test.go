package fetch

import (
	"bufio"
	"net"
	"runtime"
	"testing"
)

// A response that announces a body near the cap (Content-Length: 1,000,000) and
// sends 16 bytes before hanging up must not cost the fetch the announced size: at
// most the bounded slice made up front (sizedReadUpFront) and the fetch's own.
func TestLyingContentLengthDoesNotAllocateTheAnnouncedSize(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					l, err := br.ReadString('\n')
					if err != nil || l == "\r\n" {
						break
					}
				}
				c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 1000000\r\n\r\n<p>sixteen b</p>"))
			}(c)
		}
	}()
	f, _ := testFetcher(t, mapResolver{}, []string{"127.0.0.0/8"}, Config{}) // 1 MiB cap
	u := "http://" + ln.Addr().String() + "/"
	f.Fetch(u, nil) // warm-up: the pools and the connection
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	const n = 5
	for range n {
		if _, err := f.Fetch(u, nil); err == nil {
			t.Fatal("a body cut short of its Content-Length fetched without error")
		}
	}
	runtime.ReadMemStats(&b)
	if per := (b.TotalAlloc - a.TotalAlloc) / n; per > 2*sizedReadUpFront {
		t.Errorf("%d bytes allocated a fetch of a 16-byte body that announced 1,000,000", per)
	}
}
