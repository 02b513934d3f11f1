package cli

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// TestAProxyEgressThatDoesNotAnswerIsWarnedOfAtStart: a crawl given a proxy egress
// nobody answers on says so at start, naming the egress (its lanes would fault and
// rotate, and the operator learnt it only from the rotation's log); a proxy that
// answers is not warned of, and the crawl starts either way.
func TestAProxyEgressThatDoesNotAnswerIsWarnedOfAtStart(t *testing.T) {
	t.Parallel()
	up, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	gone, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := gone.Addr().String()
	gone.Close()

	db := filepath.Join(t.TempDir(), "c.db")
	var stdout, stderr strings.Builder
	code := Main([]string{"crawl", "--headless", "--duration", "1s", "--db", db, "--allow-private", "127.0.0.0/8",
		"--egress", "up=http://" + up.Addr().String(), "--egress", "down=socks5://" + down, "--egress", "bind:127.0.0.1",
		"http://127.0.0.1:9/"}, &stdout, &stderr)
	errs := stderr.String()
	if !strings.Contains(errs, "warning: egress down (socks5://"+down+"): the proxy does not answer now") {
		t.Errorf("no start-up warning for the proxy egress nobody answers on (exit %d)\n%s", code, errs)
	}
	if strings.Contains(errs, "egress up (") {
		t.Errorf("a warning for the proxy that answers\n%s", errs)
	}
	if !strings.Contains(stdout.String()+errs, "done:") && !strings.Contains(stdout.String()+errs, "stopped") {
		t.Errorf("the crawl did not run (exit %d)\n%s\n%s", code, stdout.String(), errs)
	}
}
