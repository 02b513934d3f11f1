package cli

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

// TestStoppedCrawlSaysHowToGoOnAndItsResumeWhatItKeeps stops a crawl with URLs left
// (its --duration) and starts it again on the same --db: the stop says the store
// keeps what was crawled and how to go on, and the second start says what it resumes
// (pages kept, URLs left), which a graceful stop left unsaid.
func TestStoppedCrawlSaysHowToGoOnAndItsResumeWhatItKeeps(t *testing.T) {
	t.Parallel()
	sb, seeds, conf := fastSandbox(t)
	db := filepath.Join(filepath.Dir(conf), "resume.db")
	args := func(extra ...string) []string {
		a := append([]string{"--config", conf, "--headless", "--db", db, "--dns-server", sb.DNSAddr(),
			"--allow-private", "127.0.0.0/8", "--delay", "40ms..40ms", "--lanes", "2"}, extra...)
		return append(a, seeds...)
	}
	var out1, err1 strings.Builder
	if code := runCrawl(context.Background(), args("--duration", "2s"), &out1, &err1); code != 0 {
		t.Fatalf("first run: exit %d\n%s%s", code, out1.String(), err1.String())
	}
	if strings.Contains(err1.String(), "resuming") {
		t.Errorf("a new store is not resumed, yet the first start said:\n%s", err1.String())
	}
	if want := "kept in " + db + ": to go on, start the crawl again with --db " + db; !strings.Contains(err1.String(), want) {
		t.Fatalf("a crawl stopped with URLs left does not say how to go on (%q):\n%s%s", want, out1.String(), err1.String())
	}
	var out2, err2 strings.Builder
	if code := runCrawl(context.Background(), []string{"--headless", "--db", db, "--dns-server", sb.DNSAddr(),
		"--allow-private", "127.0.0.0/8", "--duration", "200ms"}, &out2, &err2); code != 0 && code != ExitNothingFetched {
		// 200 ms may end before its first page while a robots.txt skip is counted: exit 5.
		t.Fatalf("resumed run: exit %d\n%s%s", code, out2.String(), err2.String())
	}
	m := regexp.MustCompile(`resuming the crawl in \S+: (\d+) pages? stored \(kept\), (\d+) URLs? left to fetch`).FindStringSubmatch(err2.String())
	if m == nil {
		t.Fatalf("the resumed start does not say what it resumes:\n%s", err2.String())
	}
	if m[1] == "0" || m[2] == "0" {
		t.Errorf("resume note %q: want the pages the first run stored and the URLs it left", m[0])
	}
}

// serve stops as crawl does: with URLs left it says the store keeps them and how to
// go on (it said nothing), as serve (crawl --db would go on without the SSH
// console), and its next start says what it resumes.
func TestServeStoppedSaysHowToGoOn(t *testing.T) {
	t.Parallel()
	sb, seeds, conf := fastSandbox(t)
	dir := filepath.Dir(conf)
	db := filepath.Join(dir, "serve.db")
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	sp, _ := gossh.NewPublicKey(pub)
	keys := filepath.Join(dir, "operators")
	if err := os.WriteFile(keys, gossh.MarshalAuthorizedKey(sp), 0o600); err != nil {
		t.Fatal(err)
	}
	args := func(extra ...string) []string {
		a := append([]string{"--ssh", "127.0.0.1:0", "--host-key", filepath.Join(dir, "host_key"), "--authorized-keys", keys,
			"--config", conf, "--db", db, "--dns-server", sb.DNSAddr(), "--allow-private", "127.0.0.0/8",
			"--delay", "40ms..40ms", "--lanes", "2"}, extra...)
		return append(a, seeds...)
	}
	var out1, err1 strings.Builder
	if code := runServe(context.Background(), args("--duration", "2s"), &out1, &err1); code != 0 {
		t.Fatalf("first run: exit %d\n%s%s", code, out1.String(), err1.String())
	}
	if want := "kept in " + db + ": to go on, start serve again with --db " + db + " and its --ssh flags"; !strings.Contains(err1.String(), want) {
		t.Fatalf("serve stopped with URLs left does not say how to go on (%q):\n%s%s", want, out1.String(), err1.String())
	}
	var out2, err2 strings.Builder
	if code := runServe(context.Background(), args("--duration", "200ms"), &out2, &err2); code != 0 && code != ExitNothingFetched {
		t.Fatalf("resumed run: exit %d\n%s%s", code, out2.String(), err2.String())
	}
	if !strings.Contains(err2.String(), "crawlconsole serve: resuming the crawl in ") {
		t.Errorf("the resumed serve does not say what it resumes:\n%s", err2.String())
	}
}

// A crawl whose discovery ran dry keeps its pages fresh (revisit is on by default):
// started again on its --db alone, it goes on revisiting. It refused with "nothing
// to crawl: give seed URLs ... (or resume a --db with queued URLs)", exit 2, as a
// master restarted while IDLE between revisits did.
func TestCrawlRanDryResumesItsRevisits(t *testing.T) {
	t.Parallel()
	sb, seeds, conf := fastSandbox(t)
	db := filepath.Join(filepath.Dir(conf), "dry.db")
	var out1, err1 strings.Builder
	a := append([]string{"--config", conf, "--headless", "--db", db, "--dns-server", sb.DNSAddr(),
		"--allow-private", "127.0.0.0/8", "--delay", "0s..0s", "--until-idle"}, seeds...)
	if code := runCrawl(context.Background(), a, &out1, &err1); code != 0 {
		t.Fatalf("first run: exit %d\n%s%s", code, out1.String(), err1.String())
	}
	var out2, err2 strings.Builder
	code := runCrawl(context.Background(), []string{"--headless", "--db", db, "--dns-server", sb.DNSAddr(),
		"--allow-private", "127.0.0.0/8", "--duration", "300ms"}, &out2, &err2)
	if code != 0 || strings.Contains(err2.String(), "nothing to crawl") {
		t.Errorf("restart of a crawl that ran dry, its pages tracked for revisit: exit %d\n%s%s", code, out2.String(), err2.String())
	}
}
