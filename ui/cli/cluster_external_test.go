package cli

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/ui/internal/uitest"
)

// natsServerPackage is the Debian package that puts nats-server (2.9.x) on PATH.
const natsServerPackage = "nats-server"

// TestClusterOnExternalNATSServer runs a master with --nats against Debian's
// nats-server (its own process: JetStream, --auth token, max_payload raised to 16MB
// in a config file, as the README tells operators) and two workers. The crawl ends
// by itself with every page of a single-process crawl stored once, and no ban.
func TestClusterOnExternalNATSServer(t *testing.T) {
	t.Parallel() // its own sandbox, store, ports and subprocesses
	if testing.Short() {
		t.Skip("runs nats-server and crawlconsole subprocesses")
	}
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		t.Skipf("nats-server is not on PATH: install Debian's package %s (apt-get install %s)", natsServerPackage, natsServerPackage)
	}
	version, _ := exec.Command(bin, "--version").CombinedOutput()
	t.Logf("external server: %s", strings.TrimSpace(string(version)))
	dir := t.TempDir()
	token := randomToken(t)
	tokenFile := filepath.Join(dir, "crawl.token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// nats-server 2.9 has no flag for max_payload: a config file sets it (crawl
	// results carry page bodies; the stock 1MB would turn big pages into
	// body_too_large).
	addr := uitest.FreeAddr(t)
	conf := filepath.Join(dir, "nats.conf")
	confText := fmt.Sprintf("# nats-server for a crawlconsole master (--nats)\nlisten: %q\nmax_payload: 16MB\n"+
		"jetstream {\n  store_dir: %q\n}\n", addr, filepath.Join(dir, "jetstream"))
	if err := os.WriteFile(conf, []byte(confText), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "-c", conf, "-t").CombinedOutput(); err != nil {
		t.Fatalf("nats-server -t rejects the config file: %v\n%s\n%s", err, out, confText)
	}
	srv := exec.Command(bin, "-c", conf, "--auth", token)
	var srvLog syncBuffer
	srv.Stdout, srv.Stderr = &srvLog, &srvLog
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	srvDone := make(chan struct{})
	go func() { srv.Wait(); close(srvDone) }()
	t.Cleanup(func() {
		srv.Process.Kill()
		<-srvDone
	})
	url := "nats://" + addr
	deadline := time.Now().Add(enginetest.Patience)
	var c *cluster.Conn
	for c == nil {
		c, err = cluster.Connect(url, cluster.ClientOptions{Name: "probe", Token: token, Timeout: time.Second})
		if err == nil {
			break
		}
		select {
		case <-srvDone:
			t.Fatalf("nats-server exited: %s", srvLog.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("nats-server not accepting clients after 10s: %v\n%s", err, srvLog.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := c.NC.MaxPayload(); got != 16<<20 {
		t.Errorf("server max_payload %d, want 16MB from the config file", got)
	}
	c.Close()

	began := time.Now()
	sb := clusterSandbox(t, 13, 6, nil)
	ref := referenceCrawl(sb, dir)
	db := filepath.Join(dir, "crawl.db")
	args := []string{"master", "--config", politeConfig(t, sb, dir, 0), "--headless", "--until-idle", "--db", db,
		"--nats", url, "--token-file", tokenFile, "--allow-private", "127.0.0.0/8", "--dns-server", sb.DNSAddr(),
		"--heartbeat", "300ms"}
	for _, s := range sb.Info().Sites {
		args = append(args, s.Entry)
	}
	master := startChild(t, "master", args...)
	master.waitOutput(t, "workers join with", 90*time.Second)
	if _, err := os.Stat(db + ".nats"); err == nil {
		t.Errorf("the master started its embedded server (%s.nats exists) although --nats was given", db)
	}
	for i, name := range []string{"w1", "w2"} {
		w := startChild(t, "worker "+name, "worker", "--join", url, "--name", name, "--token-file", tokenFile,
			"--egress", fmt.Sprintf("bind:127.0.0.%d", 2+2*i), "--egress", fmt.Sprintf("bind:127.0.0.%d", 3+2*i),
			"--allow-private", "127.0.0.0/8", "--dns-server", sb.DNSAddr())
		w.waitOutput(t, "worker "+name+": joined", 90*time.Second)
	}
	if code := master.wait(t); code != 0 || !strings.Contains(master.out.String(), "done:") {
		t.Fatalf("master exited with status %d without finishing:\n%s", code, tail(master.out.String(), 20))
	}
	want := (<-ref).get(t)
	sameSet(t, "crawl over an external nats-server", finalStore(t, db), want)
	if bans := sb.Truth().Bans(); len(bans) != 0 {
		t.Fatalf("%d sandbox bans, first %+v", len(bans), bans[0])
	}
	t.Logf("%d pages over %s, each stored once, 0 bans; %v", len(want), strings.TrimSpace(string(version)), time.Since(began).Round(time.Second))
}

// TestClusterRefusesBadCredential: a worker with a wrong token exits 2 naming the
// credential flags (and never prints the token it was given), and a client without
// the token cannot connect to the master's embedded server at all, so it can neither
// take tasks (crawl.task.>) nor forge results (crawl.result.w1).
func TestClusterRefusesBadCredential(t *testing.T) {
	t.Parallel() // its own store, ports and subprocesses
	if testing.Short() {
		t.Skip("runs crawlconsole subprocesses")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "crawl.db")
	addr := uitest.FreeAddr(t)
	// No worker ever joins: the master waits with its seed queued.
	master := startChild(t, "master", "master", "--headless", "--db", db, "--listen", addr,
		"--allow-private", "127.0.0.0/8", "http://127.0.0.1:9/")
	master.waitOutput(t, "workers join with", 90*time.Second)
	url := "nats://" + addr
	token, err := os.ReadFile(db + ".token")
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(db + ".token"); fi.Mode().Perm() != 0o600 {
		t.Errorf("credential file mode %v, want 0600", fi.Mode().Perm())
	}

	wrong := "wrong-" + randomToken(t)
	wrongFile := filepath.Join(dir, "wrong.token")
	if err := os.WriteFile(wrongFile, []byte(wrong+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, flag, value string }{
		{"token-file", "--token-file", wrongFile},
		{"token", "--token", wrong},
	} {
		t.Run("worker "+tc.name, func(t *testing.T) {
			w := startChild(t, "worker", "worker", "--join", url, "--name", "w1", tc.flag, tc.value,
				"--egress", "bind:127.0.0.2", "--allow-private", "127.0.0.0/8")
			code := w.wait(t)
			out := w.out.String()
			if code != ExitUsage || !strings.Contains(out, "--token") || !strings.Contains(out, "--token-file") {
				t.Fatalf("worker with a wrong %s: exit %d, want %d and a message naming --token / --token-file:\n%s", tc.flag, code, ExitUsage, out)
			}
			t.Logf("exit %d: %s", code, strings.TrimSpace(out))
			if strings.Contains(out, wrong) {
				t.Fatalf("the worker printed the token it was given:\n%s", out)
			}
		})
	}

	// A legitimate client watches the crawl's subjects while strangers try.
	watcher, err := cluster.Connect(url, cluster.ClientOptions{Name: "watcher", Token: strings.TrimSpace(string(token))})
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close()
	seen, err := watcher.NC.SubscribeSync("crawl.>")
	if err != nil {
		t.Fatal(err)
	}
	if err := watcher.NC.Flush(); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name string
		opts []nats.Option
	}{
		{"no token", nil},
		{"wrong token", []nats.Option{nats.Token(wrong)}},
	} {
		t.Run("nats.go "+tc.name, func(t *testing.T) {
			nc, err := nats.Connect(url, append(tc.opts, nats.Timeout(5*time.Second), nats.MaxReconnects(0))...)
			if err == nil {
				defer nc.Close()
				_, subErr := nc.SubscribeSync("crawl.task.>")
				pubErr := nc.Publish("crawl.result.w1", []byte("forged"))
				t.Fatalf("connected without the crawl's token (subscribe: %v, publish: %v)", subErr, pubErr)
			}
			if !errors.Is(err, nats.ErrAuthorization) && !strings.Contains(strings.ToLower(err.Error()), "authorization") {
				t.Fatalf("connect without the token failed, but not as an authorization error: %v", err)
			}
		})
	}

	// Below the client library: the server answers a CONNECT without the token with
	// an authorization error and hangs up, before any SUB or PUB counts.
	t.Run("raw protocol", func(t *testing.T) {
		conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		r := bufio.NewReader(conn)
		if info, err := r.ReadString('\n'); err != nil || !strings.HasPrefix(info, "INFO ") {
			t.Fatalf("no INFO from the server: %q %v", info, err)
		}
		fmt.Fprint(conn, "CONNECT {\"verbose\":true,\"pedantic\":false}\r\nSUB crawl.task.> 1\r\n"+
			"PUB crawl.result.w1 6\r\nforged\r\nPING\r\n")
		var got []string
		for {
			line, err := r.ReadString('\n')
			if line != "" {
				got = append(got, strings.TrimSpace(line))
			}
			if err != nil {
				break // the server closed the connection
			}
		}
		all := strings.Join(got, " | ")
		t.Logf("server: %s", all)
		if !strings.Contains(strings.ToLower(all), "authorization violation") {
			t.Fatalf("server replies %q: want an authorization violation", all)
		}
		for _, l := range got {
			if strings.HasPrefix(l, "+OK") || strings.HasPrefix(l, "PONG") || strings.HasPrefix(l, "MSG") {
				t.Fatalf("the server accepted part of an unauthenticated session: %q", all)
			}
		}
	})

	// Nothing a stranger sent reached the crawl's subjects: the first message the
	// watcher sees is its own marker, published after every attempt above ended.
	if err := watcher.NC.Publish("crawl.marker", []byte("marker")); err != nil {
		t.Fatal(err)
	}
	msg, err := seen.NextMsg(5 * time.Second)
	if err != nil {
		t.Fatalf("the watcher's own marker did not arrive: %v", err)
	}
	if msg.Subject != "crawl.marker" {
		t.Fatalf("a message on %s (%q) reached the crawl's subjects before the marker", msg.Subject, msg.Data)
	}
}

func randomToken(t *testing.T) string {
	t.Helper()
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}
