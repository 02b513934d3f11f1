package cli

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/holds"
	"github.com/crawlconsole/crawlconsole/store"
)

// TestAResumedCrawlSaysTheHostsTheOperatorHolds: a crawl stopped with a host the
// operator paused starts again on its --db holding it, and its start line says so,
// a hold on a host the store has no URL of included (the host a site's robots.txt
// redirects to has none), with no warning.
func TestAResumedCrawlSaysTheHostsTheOperatorHolds(t *testing.T) {
	t.Parallel()
	sb, seeds, conf := fastSandbox(t)
	db := filepath.Join(filepath.Dir(conf), "holds.db")
	args := func(extra ...string) []string {
		return append([]string{"--config", conf, "--headless", "--db", db, "--dns-server", sb.DNSAddr(),
			"--allow-private", "127.0.0.0/8", "--delay", "40ms..40ms", "--lanes", "2"}, extra...)
	}
	var out1, err1 strings.Builder
	if code := runCrawl(context.Background(), append(args("--duration", "1s"), seeds...), &out1, &err1); code != 0 {
		t.Fatalf("first run: exit %d\n%s%s", code, out1.String(), err1.String())
	}
	u, err := url.Parse(seeds[0])
	if err != nil {
		t.Fatal(err)
	}
	// What the operator's `:pause host` left in the store, on a seed's host and on a
	// host the store has no URL of.
	st, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := holds.New(st)
	b.Pause(u.Hostname(), true)
	b.Pause("nowhere.invalid", true)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	var out2, err2 strings.Builder
	if code := runCrawl(context.Background(), args("--duration", "200ms"), &out2, &err2); code != 0 && code != ExitNothingFetched {
		t.Fatalf("resumed run: exit %d\n%s%s", code, out2.String(), err2.String())
	}
	if want := ", 2 hosts paused by the operator (kept)"; !strings.Contains(err2.String(), want) {
		t.Errorf("the resumed start does not say %q:\n%s", want, err2.String())
	}
	if strings.Contains(err2.String(), holds.MetaKey) {
		t.Errorf("the resumed start warns of the holds kept under %s:\n%s", holds.MetaKey, err2.String())
	}
}
