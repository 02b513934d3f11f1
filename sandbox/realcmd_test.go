package sandbox

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

// `sandbox --corpus DIR` serves the real-world corpus for a crawl by hand (it was
// served by the realfeeds bench alone): one JSON line with the HTTP and DNS
// addresses, the home pages and the crawl command; --homes writes the home pages
// for crawl --seeds; the DNS server answers a corpus host with 127.0.0.1, and the
// home page of a host publishing a feed links it, as the bench serves it.
func TestSandboxServesTheRealCorpusByHand(t *testing.T) {
	dir := filepath.Join("..", "engine", "discover", "testdata", "realworld")
	homes := filepath.Join(t.TempDir(), "homes.txt")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	line, stderr, code := startCommand(t, ctx, "--corpus", dir, "--homes", homes)
	var info realInfo
	if err := json.Unmarshal([]byte(line), &info); err != nil {
		t.Fatalf("not the JSON line: %v\n%s", err, line)
	}
	docs, err := LoadRealCorpus(dir)
	if err != nil {
		t.Fatal(err)
	}
	if info.Documents != len(docs) || info.Feeds+info.Sitemaps != len(docs) || len(info.Homes) == 0 ||
		!strings.Contains(info.Crawl, "--seeds "+homes+" --dns-server "+info.DNS+" --allow-private 127.0.0.0/8") {
		t.Errorf("info %+v: want %d documents, the home pages and the crawl command", info, len(docs))
	}
	data, err := os.ReadFile(homes)
	if err != nil || strings.Join(info.Homes, "\n")+"\n" != string(data) {
		t.Errorf("--homes file (%v): %d bytes, want the %d home pages one a line", err, len(data), len(info.Homes))
	}

	var feed RealDoc
	for _, d := range docs {
		if d.IsFeed() {
			feed = d
			break
		}
	}
	u, _ := url.Parse(feed.URL)
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(u.Hostname()), dns.TypeA)
	r, err := dns.Exchange(m, info.DNS)
	if err != nil || len(r.Answer) != 1 || r.Answer[0].(*dns.A).A.String() != "127.0.0.1" {
		t.Fatalf("DNS answer for %s: %v, %v; want 127.0.0.1", u.Hostname(), r, err)
	}
	req, _ := http.NewRequest("GET", "http://"+info.HTTP+"/", nil)
	req.Host = net.JoinHostPort(u.Hostname(), strings.Split(info.HTTP, ":")[1])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `rel="alternate"`) {
		t.Errorf("home page of %s: %d\n%s\nwant it to link its feed", u.Hostname(), resp.StatusCode, body)
	}
	cancel()
	waitExit(t, code, stderr)
}

// Without --homes the crawl command's --seeds FILE names a file the operator has
// not got: stderr says how to have it written.
func TestSandboxCorpusWithoutHomesSaysHowToGetTheSeeds(t *testing.T) {
	dir := filepath.Join("..", "engine", "discover", "testdata", "realworld")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, stderr, code := startCommand(t, ctx, "--corpus", dir)
	if !strings.Contains(stderr.String(), "start the sandbox with --homes FILE") {
		t.Errorf("stderr %q: want how to have the home pages written for --seeds", stderr.String())
	}
	cancel()
	waitExit(t, code, stderr)
}

// --homes without --corpus is a usage error naming what is missing.
func TestSandboxHomesNeedsCorpus(t *testing.T) {
	var stderr strings.Builder
	if c := RunCommand(context.Background(), []string{"--homes", "x.txt"}, io.Discard, &stderr); c != 2 || !strings.Contains(stderr.String(), "give --corpus DIR too") {
		t.Errorf("--homes alone: exit %d, %q", c, stderr.String())
	}
}

// `sandbox --spa` serves the script-built sites beside the web, for a crawl that
// renders to be tried by hand (they were served by the render tests and bench
// alone): the JSON line names each one's home page, and the spa site's is a shell.
func TestSandboxServesTheScriptBuiltSites(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	line, stderr, code := startCommand(t, ctx, "--spa", "--hosts", "4", "--dns-latency", "0s..1ms")
	var info struct {
		HTTP string            `json:"http"`
		SPA  map[string]string `json:"spa"`
	}
	if err := json.Unmarshal([]byte(line), &info); err != nil || info.HTTP == "" || len(info.SPA) != 5 {
		t.Fatalf("JSON line %s (%v): want the web's fields and 5 script-built sites", line, err)
	}
	resp, err := http.Get(info.SPA[SPASite])
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `id="root"`) {
		t.Errorf("spa home %s: %d\n%s\nwant a script-built shell", info.SPA[SPASite], resp.StatusCode, body)
	}
	cancel()
	waitExit(t, code, stderr)
}
