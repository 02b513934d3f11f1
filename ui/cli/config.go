package cli

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/crawlconsole/crawlconsole/engine"
)

// loadConfig decodes a YAML config file onto opts (defaults already in place), strictly:
// an unknown key is an error naming the key and its line.
func loadConfig(path string, opts *engine.Options) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--config: %v", err)
	}
	return decodeConfig(path, data, opts)
}

// decodeConfig is loadConfig on the file's bytes.
func decodeConfig(path string, data []byte, opts *engine.Options) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(opts); err != nil && !errors.Is(err, io.EOF) { // EOF: empty file
		return fmt.Errorf("config %s: %s", path, yamlError(err))
	}
	return nil
}

var unknownKey = regexp.MustCompile(`line (\d+): field (\S+) not found in type`)

// yamlError rewrites yaml.v3's messages into ones an operator can act on.
func yamlError(err error) string {
	var lines []string
	for _, l := range strings.Split(err.Error(), "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(l, "yaml: "))
		if l == "" || l == "unmarshal errors:" {
			continue
		}
		if m := unknownKey.FindStringSubmatch(l); m != nil {
			l = fmt.Sprintf("line %s: unknown key %q (see the config reference in README.md)", m[1], m[2])
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "; ")
}

// readSeeds reads one URL per line; blank lines and #-comments are skipped.
func readSeeds(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--seeds: %v", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, l)
	}
	return out, sc.Err()
}

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// delayFlag parses --delay MIN..MAX.
type delayFlag struct{ min, max time.Duration }

func (d *delayFlag) String() string {
	if d.min == 0 && d.max == 0 {
		return ""
	}
	return d.min.String() + ".." + d.max.String()
}

func (d *delayFlag) Set(v string) error {
	lo, hi, ok := strings.Cut(v, "..")
	if !ok {
		return fmt.Errorf("want MIN..MAX, e.g. 2s..6s")
	}
	a, err1 := time.ParseDuration(lo)
	b, err2 := time.ParseDuration(hi)
	if err1 != nil || err2 != nil || a < 0 || b < a {
		return fmt.Errorf("want MIN..MAX with 0 <= MIN <= MAX, e.g. 2s..6s")
	}
	d.min, d.max = a, b
	return nil
}

// parseInterspersed parses flags that may come before, between or after positional
// arguments (crawl URL --lanes 4 URL2), returning the positionals.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// setFlags returns the names of flags given on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	m := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { m[f.Name] = true })
	return m
}

// positiveInt is a flag.Value for counts >= 1 with a clear message.
type positiveInt struct{ n *int }

func (p positiveInt) String() string {
	if p.n == nil || *p.n == 0 { // not given (0 is never taken): --help shows no default
		return ""
	}
	return strconv.Itoa(*p.n)
}

func (p positiveInt) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return fmt.Errorf("want a whole number >= 1")
	}
	*p.n = n
	return nil
}
