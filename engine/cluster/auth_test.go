package cluster

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/embedded"
	"github.com/nats-io/nats.go"
)

// checkRefusesStrangers asserts what a user relies on: without the master's token a
// client can neither read tasks nor publish results, because it cannot connect.
func checkRefusesStrangers(t *testing.T, url string) {
	t.Helper()
	tests := []struct{ name, token string }{
		{"anonymous", ""},
		{"wrong token", "not-" + testToken},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Connect(url, ClientOptions{Name: "stranger", Token: tc.token})
			if err == nil {
				c.Close()
				t.Fatal("Connect succeeded; want ErrAuth")
			}
			if !errors.Is(err, ErrAuth) {
				t.Fatalf("err = %v; want errors.Is(err, ErrAuth)", err)
			}
			for _, w := range []string{"--token", "--token-file"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %s", err, w)
				}
			}
		})
	}
	t.Run("raw client", func(t *testing.T) {
		nc, err := nats.Connect(url)
		if err == nil {
			defer nc.Close()
			_, subErr := nc.SubscribeSync("tasks.>")
			pubErr := nc.Publish("results.x", []byte("forged"))
			t.Fatalf("an unauthenticated client connected (subscribe: %v, publish: %v)", subErr, pubErr)
		}
	})
	t.Run("token in URL is redacted", func(t *testing.T) {
		withUser := strings.Replace(url, "://", "://wrong-secret@", 1)
		_, err := Connect(withUser, ClientOptions{})
		if err == nil || strings.Contains(err.Error(), "wrong-secret") {
			t.Fatalf("err = %v; want a refusal that does not show the token", err)
		}
	})
}

func TestEmbeddedRefusesStrangers(t *testing.T) {
	t.Parallel()
	s, _ := startTestServer(t, nil)
	checkRefusesStrangers(t, s.ClientURL())
	connectTest(t, s.ClientURL(), ClientOptions{Name: "worker-1"}) // the right token gets in
}

func TestConnectUnreachable(t *testing.T) {
	t.Parallel()
	url := fmt.Sprintf("nats://127.0.0.1:%d", freePort(t))
	_, err := Connect(url, ClientOptions{Token: testToken})
	if err == nil {
		t.Fatal("Connect to a closed port succeeded")
	}
	if errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "cannot reach the master at "+url) {
		t.Fatalf("err = %v; want \"cannot reach the master at %s\"", err, url)
	}
}

func TestServerVersionFloor(t *testing.T) {
	tests := []struct {
		version string
		ok      bool
	}{
		{"2.9.10", true},
		{"2.9.0", true},
		{"2.15.2", true},
		{"2.11.0-RC.1", true},
		{"3.0.0", true},
		{"2.8.4", false},
		{"2.2.0", false},
		{"1.4.1", false},
		{"", true}, // nothing to go on: let the JetStream calls speak
	}
	for _, tc := range tests {
		if got := atLeast(tc.version, 2, 9); got != tc.ok {
			t.Errorf("atLeast(%q, 2, 9) = %v; want %v", tc.version, got, tc.ok)
		}
	}
}

// TestSlowClientIsNotRefusedBeforeItsTimeout: a client that takes longer than
// nats-server's default 2 s to authenticate, well within Connect's own
// DefaultTimeout (a worker on a loaded box), still gets in.
func TestSlowClientIsNotRefusedBeforeItsTimeout(t *testing.T) {
	t.Parallel()
	if embedded.AuthTimeout != DefaultTimeout {
		t.Fatalf("the embedded server lets a client take %v to authenticate, Connect allows itself %v: keep them equal", embedded.AuthTimeout, DefaultTimeout)
	}
	s, _ := startTestServer(t, nil)
	addr := strings.TrimPrefix(s.ClientURL(), "nats://")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(DefaultTimeout + 5*time.Second))
	r := bufio.NewReader(c)
	if line, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(line, "INFO ") {
		t.Fatalf("first line %q, %v; want the server's INFO", line, err)
	}
	// The client is slow: its CONNECT comes past the 2 s a default server allows.
	time.Sleep(2500 * time.Millisecond)
	if _, err := fmt.Fprintf(c, "CONNECT {\"auth_token\":%q,\"verbose\":false,\"pedantic\":false}\r\nPING\r\n", testToken); err != nil {
		t.Fatalf("send CONNECT: %v", err)
	}
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("no PONG: %v", err)
		}
		if strings.HasPrefix(line, "-ERR") {
			t.Fatalf("the server refused a client still within its %v connect bound: %s", DefaultTimeout, strings.TrimSpace(line))
		}
		if strings.HasPrefix(line, "PONG") {
			return
		}
	}
}
