package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/config"
)

// The README's config reference must decode as it stands (strictly: every key known).
func TestREADMEConfigExampleDecodes(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "```yaml\n")
	if !ok {
		t.Fatal("README has no yaml block")
	}
	block, _, _ := strings.Cut(rest, "```")
	path := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(path, []byte(block), 0o644)
	o := config.DefaultOptions()
	if err := loadConfig(path, &o); err != nil {
		t.Fatalf("README config example: %v", err)
	}
	if o.Lanes.Max != 32 || o.Revisit.Policy != "estimator" || len(o.Egress) != 2 {
		t.Fatalf("decoded wrongly: lanes %d policy %q egress %v", o.Lanes.Max, o.Revisit.Policy, o.Egress)
	}
	if err := o.Validate(); err != nil {
		t.Fatalf("README config example does not validate: %v", err)
	}
}

func TestConfigUnknownKeyNamesKeyAndLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(path, []byte("lanes:\n  max: 4\n  dealy_min: 2s\n"), 0o644)
	o := config.DefaultOptions()
	err := loadConfig(path, &o)
	if err == nil || !strings.Contains(err.Error(), `"dealy_min"`) || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("want an error naming dealy_min and line 3, got %v", err)
	}
}

// A typo'd key says what it may have meant, or, far from any, the keys its place
// takes: the error only named the key and sent the operator to the README.
func TestConfigUnknownKeySaysWhatItMeant(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"lanes:\n  max: 4\n  dealy_min: 2s\n", `unknown key "dealy_min": did you mean "delay_min"?`},
		{"lanez: {max: 4}\n", `unknown key "lanez": did you mean "lanes"?`},
		{"sites:\n  - {name: a, kind: news, entry: \"http://a.example/\", keywrds: [x]}\n", `did you mean "keywords"?`},
		{"fetch: {bogus_thing: 4}\n", `unknown key "bogus_thing": the keys here are connect_timeout, content_types, max_body_bytes,`},
	} {
		path := filepath.Join(t.TempDir(), "c.yaml")
		os.WriteFile(path, []byte(c.yaml), 0o644)
		o := config.DefaultOptions()
		if err := loadConfig(path, &o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("config %q: %v; want %q", c.yaml, err, c.want)
		}
	}
}

func TestFlagsOverrideConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(path, []byte("lanes: {max: 4, delay_min: 3s, delay_max: 9s}\nuser_agent: from-file\n"), 0o644)
	c := newCrawlFlags("crawl", "", io.Discard, &strings.Builder{})
	pos, code, done := c.parse([]string{"--config", path, "https://example.com/", "--lanes", "7"})
	if done || code != 0 {
		t.Fatalf("parse: code %d", code)
	}
	o, err := c.options(pos)
	if err != nil {
		t.Fatal(err)
	}
	if o.Lanes.Max != 7 || o.Lanes.DelayMin.String() != "3s" || o.UserAgent != "from-file" || len(o.Seeds) != 1 {
		t.Fatalf("defaults -> file -> flags broken: %+v", o.Lanes)
	}
	if _, code, done := newCrawlFlags("crawl", "", io.Discard, &strings.Builder{}).parse([]string{"--lanes", "0"}); !done || code != ExitUsage {
		t.Fatalf("--lanes 0 must be a usage error (exit 2), got done=%v code=%d", done, code)
	}
}

// An unknown --theme is a usage error before anything starts: no database is
// created, no URL queued (it was found only when the console opened, after the
// crawl had begun; and never with --headless).
func TestUnknownThemeRefusedBeforeTheCrawl(t *testing.T) {
	for _, cmd := range []string{"crawl", "demo"} {
		t.Run(cmd, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "t.db")
			args := []string{cmd, "--theme", "solarized", "--headless", "--db", db}
			if cmd == "crawl" {
				args = append(args, "http://127.0.0.1:9/")
			}
			var stderr strings.Builder
			if code := Main(args, io.Discard, &stderr); code != ExitUsage || !strings.Contains(stderr.String(), `unknown theme "solarized"`) {
				t.Errorf("exit %d, %q; want %d naming the theme", code, stderr.String(), ExitUsage)
			}
			if _, err := os.Stat(db); err == nil {
				t.Errorf("the database was created for a refused start")
			}
		})
	}
}

// A negative --duration was taken as no limit.
func TestNegativeDurationRefused(t *testing.T) {
	for _, cmd := range []string{"crawl", "demo"} {
		args := []string{cmd, "--duration", "-1s", "--headless", "--db", filepath.Join(t.TempDir(), "t.db")}
		if cmd == "crawl" {
			args = append(args, "http://127.0.0.1:9/")
		}
		var stderr strings.Builder
		if code := Main(args, io.Discard, &stderr); code != ExitUsage || !strings.Contains(stderr.String(), "--duration must be >= 0") {
			t.Errorf("%s: exit %d, %q; want %d naming --duration", cmd, code, stderr.String(), ExitUsage)
		}
	}
}

// A value of the wrong shape names its key and what it wants in the config's words,
// not Go's types ("cannot unmarshal !!seq into config.LaneOptions").
func TestConfigWrongShapeNamesKeyAndWhatItWants(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"seeds: http://example.com/\n", "line 1: seeds wants a list"},
		{"lanes: [1, 2]\n", "line 1: lanes wants a mapping of its keys"},
		{"lanes:\n  max: 4\n  delay_min: 5\n", "line 3: lanes.delay_min wants a duration with its unit"},
		{"lanes: {max: four}\n", "line 1: lanes.max wants a whole number, got `four`"},
		{"sites:\n  - name: a\n    keywords: storm\n", "line 3: sites[0].keywords wants a list"},
	} {
		path := filepath.Join(t.TempDir(), "c.yaml")
		os.WriteFile(path, []byte(c.yaml), 0o644)
		o := config.DefaultOptions()
		err := loadConfig(path, &o)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "unmarshal") {
			t.Errorf("%q: want an error saying %q, got %v", c.yaml, c.want, err)
		}
	}
}

// Nothing to crawl on a store that does not exist is a usage error said before the
// store is created: crawl, serve and master leave no empty store behind.
func TestNothingToCrawlLeavesNoStore(t *testing.T) {
	dir := t.TempDir()
	for _, cmd := range []string{"crawl", "master"} {
		db := filepath.Join(dir, cmd+".db")
		var stderr strings.Builder
		code := Main([]string{cmd, "--headless", "--db", db}, io.Discard, &stderr)
		if code != ExitUsage || !strings.Contains(stderr.String(), "nothing to crawl") {
			t.Errorf("%s without seeds: exit %d, %q; want %d and nothing to crawl", cmd, code, stderr.String(), ExitUsage)
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Errorf("%s without seeds left %d files (%s...)", cmd, len(entries), entries[0].Name())
		}
	}
	// A config that declares only feeds or sitemaps for discovery has something to crawl.
	conf := filepath.Join(t.TempDir(), "feeds.yaml")
	os.WriteFile(conf, []byte("discovery:\n  feeds: [\"http://127.0.0.1:1/feed.xml\"]\n"), 0o644)
	c := newCrawlFlags("crawl", "", io.Discard, &strings.Builder{})
	pos, code, done := c.parse([]string{"--config", conf, "--db", filepath.Join(dir, "feeds.db")})
	if done || code != 0 {
		t.Fatalf("parse: code %d", code)
	}
	if _, err := c.options(pos); err != nil {
		t.Errorf("a config declaring only a feed: %v", err)
	}
}

// A value the options' checks refuse after the file decoded (out of range, not of
// the wrong shape) names the file and the line of its key, like a YAML error; a
// flag that overrides the key makes it the flag's, with no line.
func TestConfigValueOutOfRangeNamesItsLine(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		file string
		args []string
		want string
	}{
		{"lanes:\n  max: -3\n", nil, "line 2: lanes.max (--lanes) must be at least 1"},
		{"user_agent: x\nfetch:\n  retries: 2\n  max_body_bytes: 12\n", nil, "line 4: fetch.max_body_bytes must be at least 1024"},
		{"rotation:\n  per_node: 1\n  pair_ban_for: -3s\n", nil, "line 3: rotation.disable_for, pair_ban_for"},
		{"lanes:\n  max: 3\n  delay_min: 5s\n  delay_max: 1s\n", nil, "line 3: lanes.delay_min and delay_max (--delay MIN..MAX)"},
		{"user_agent: from-file\n", []string{"--user-agent", ""}, "user_agent (--user-agent) must not be empty"},
	} {
		path := filepath.Join(dir, "c.yaml")
		os.WriteFile(path, []byte(c.file), 0o644)
		f := newCrawlFlags("crawl", "", io.Discard, &strings.Builder{})
		pos, code, done := f.parse(append([]string{"--config", path, "https://example.com/"}, c.args...))
		if done {
			t.Fatalf("parse %q: code %d", c.file, code)
		}
		_, err := f.options(pos)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("config %q %v: %v; want %q", c.file, c.args, err, c.want)
			continue
		}
		if fromFile := c.args == nil; fromFile != strings.HasPrefix(err.Error(), "config "+path+": line ") {
			t.Errorf("config %q %v: %v; the file and line only when the file's value is refused", c.file, c.args, err)
		}
	}
}
