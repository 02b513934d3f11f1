package cluster

import (
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/cluster/embedded"
)

func TestEmbeddedServerRefusesBadOptions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ok := embedded.Options{Listen: "127.0.0.1:0", StoreDir: dir, Token: testToken}
	tests := []struct {
		name string
		edit func(*embedded.Options)
		want []string // substrings of the error
	}{
		{"no token", func(o *embedded.Options) { o.Token = "" }, []string{"token", "--token"}},
		{"no store dir", func(o *embedded.Options) { o.StoreDir = "" }, []string{"store directory"}},
		{"all interfaces", func(o *embedded.Options) { o.Listen = "0.0.0.0:0" }, []string{"--listen 0.0.0.0:0", "not a loopback"}},
		{"empty host", func(o *embedded.Options) { o.Listen = ":0" }, []string{"--listen :0", "not a loopback"}},
		{"remote address", func(o *embedded.Options) { o.Listen = "192.0.2.1:4222" }, []string{"--listen 192.0.2.1:4222"}},
		{"not host:port", func(o *embedded.Options) { o.Listen = "4222" }, []string{"--listen", "host:port"}},
		{"bad port", func(o *embedded.Options) { o.Listen = "127.0.0.1:http" }, []string{"--listen", "port"}},
		{"cert without key", func(o *embedded.Options) { o.TLSCert = "cert.pem" }, []string{"--tls-cert", "--tls-key"}},
		{"missing cert files", func(o *embedded.Options) { o.TLSCert, o.TLSKey = dir+"/no.pem", dir+"/no-key.pem" }, []string{"no.pem"}},
		{"payload too big", func(o *embedded.Options) { o.MaxPayload = 1 << 30 }, []string{"max payload"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := ok
			tc.edit(&o)
			s, err := embedded.Start(o)
			if err == nil {
				s.Shutdown()
				t.Fatalf("embedded.Start(%+v) started; want an error", o)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestEmbeddedServerLoopbackVariants(t *testing.T) {
	t.Parallel()
	tests := []struct {
		listen, remote string
		allow          bool
	}{
		{"127.0.0.1:0", "", false},
		{"localhost:0", "", false},
		{"0.0.0.0:0", "", true}, // allowed remote: ClientURL still names loopback
	}
	for _, tc := range tests {
		t.Run(tc.listen, func(t *testing.T) {
			s, _ := startTestServer(t, func(o *embedded.Options) { o.Listen, o.AllowRemote = tc.listen, tc.allow })
			if !strings.HasPrefix(s.ClientURL(), "nats://127.0.0.1:") || strings.HasSuffix(s.ClientURL(), ":0") {
				t.Fatalf("ClientURL = %q; want nats://127.0.0.1:<real port>", s.ClientURL())
			}
			connectTest(t, s.ClientURL(), ClientOptions{Name: "probe"})
		})
	}
}

func TestEmbeddedServerPortInUse(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	listen := l.Addr().String()
	_, err = embedded.Start(embedded.Options{Listen: listen, StoreDir: t.TempDir(), Token: testToken})
	if err == nil {
		t.Fatal("embedded.Start on a busy port succeeded")
	}
	if !strings.Contains(err.Error(), "--listen "+listen) || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("error %q should name --listen %s and say the address is in use", err, listen)
	}
}

// The console owns the terminal: the server and a client must not print, even when a
// client is refused. Not parallel, since it swaps os.Stdout and os.Stderr.
func TestNothingPrintedToTerminal(t *testing.T) {
	outR, outW, _ := os.Pipe()
	errR, errW, _ := os.Pipe()
	stdout, stderr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = outW, errW
	var got [2][]byte
	var wg sync.WaitGroup
	for i, r := range []*os.File{outR, errR} {
		wg.Go(func() { got[i], _ = io.ReadAll(r) })
	}
	func() {
		defer func() { os.Stdout, os.Stderr = stdout, stderr }()
		s, err := embedded.Start(embedded.Options{Listen: "127.0.0.1:0", StoreDir: t.TempDir(), Token: testToken})
		if err != nil {
			t.Errorf("embedded.Start: %v", err)
			return
		}
		if _, err := Connect(s.ClientURL(), ClientOptions{Token: "wrong"}); err == nil {
			t.Error("wrong token accepted")
		}
		c, err := Connect(s.ClientURL(), ClientOptions{Token: testToken})
		if err != nil {
			t.Errorf("Connect: %v", err)
		} else {
			// Publishing over the limit makes nats.go report an error; it must not print.
			_ = c.NC.Publish("big", make([]byte, embedded.DefaultMaxPayload+1))
			s.Shutdown() // the client sees a disconnect while still open
			c.Close()
			return
		}
		s.Shutdown()
	}()
	outW.Close()
	errW.Close()
	wg.Wait()
	if len(got[0])+len(got[1]) > 0 {
		t.Fatalf("printed to the terminal:\nstdout: %q\nstderr: %q", got[0], got[1])
	}
}

func TestServerLogfReceivesLines(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var lines []string
	startTestServer(t, func(o *embedded.Options) {
		o.Logf = func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			lines = append(lines, fmt.Sprintf(format, args...))
		}
	})
	mu.Lock()
	defer mu.Unlock()
	joined := strings.Join(lines, "\n")
	if !strings.Contains(joined, "Server is ready") {
		t.Fatalf("Logf got no ready line; got:\n%s", joined)
	}
	if strings.Contains(joined, testToken) {
		t.Fatalf("server log shows the token:\n%s", joined)
	}
}
