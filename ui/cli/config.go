package cli

import (
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

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/ui/cli/clikit"

	"gopkg.in/yaml.v3"
)

// maxConfigBytes is the largest config file read. YAML is decoded whole, into a
// node tree some 100 times the file's size for lists of short items, so the cap is
// what bounds start-up memory: 256 KiB is thousands of declared sites, and long seed
// lists belong in --seeds FILE, which is streamed.
const maxConfigBytes = 256 << 10

// loadConfig decodes a YAML config file onto opts (defaults already in place), strictly:
// an unknown key is an error naming the key and its line. A file over maxConfigBytes
// is refused unread.
func loadConfig(path string, opts *config.Options) error {
	data, err := readCapped(path, maxConfigBytes)
	if err != nil {
		return fmt.Errorf("--config: %v", err)
	}
	return decodeConfig(path, data, opts)
}

// readCapped reads a file that is read whole, refusing it if it is over max bytes
// (a FIFO or /dev/stdin has no size to check first: reading stops at max+1).
func readCapped(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tooBig := func(size string) error {
		return fmt.Errorf("%s is %s, over the %s this file may be", path, size, byteSize(max))
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > max {
		return nil, tooBig(byteSize(fi.Size()))
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, tooBig("more than " + byteSize(max))
	}
	return data, nil
}

// byteSize writes n bytes as an operator reads them: 256 KiB, 200.0 MiB (n bytes).
func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB (%d bytes)", float64(n)/(1<<20), n)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB (%d bytes)", float64(n)/(1<<10), n)
	}
	return fmt.Sprintf("%d bytes", n)
}

// decodeConfig is loadConfig on the file's bytes.
func decodeConfig(path string, data []byte, opts *config.Options) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(opts); err != nil && !errors.Is(err, io.EOF) { // EOF: empty file
		return fmt.Errorf("config %s: %s", path, yamlError(err, data))
	}
	return nil
}

var (
	unknownKey = regexp.MustCompile(`line (\d+): field (\S+) not found in type (\S+)`)
	// yaml.v3 cuts a long value to its first 7 characters and "...".
	wrongType = regexp.MustCompile("^line (\\d+): cannot unmarshal !!(\\w+)(?: `(.*)`)? into (\\S+)$")
)

// yamlError rewrites yaml.v3's messages into ones an operator can act on: an unknown
// key is named, and a value of the wrong shape says which key wanted what, in the
// config's words rather than Go's types (`!!seq into config.LaneOptions`).
func yamlError(err error, data []byte) string {
	var root yaml.Node
	_ = yaml.Unmarshal(data, &root) // decodes if the typed decode got this far
	var lines []string
	for _, l := range strings.Split(err.Error(), "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(l, "yaml: "))
		if l == "" || l == "unmarshal errors:" {
			continue
		}
		if m := unknownKey.FindStringSubmatch(l); m != nil {
			l = fmt.Sprintf("line %s: unknown key %q", m[1], m[2])
			if h := keyHint(m[2], m[3]); h != "" {
				l += ": " + h
			}
			l += " (see the config reference in README.md)"
		} else if m := wrongType.FindStringSubmatch(l); m != nil {
			l = wrongTypeMessage(&root, m[1], m[2], m[3], m[4])
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "; ")
}

// wrongTypeMessage says which key (found by line and value in the parsed document)
// wanted what and got what.
func wrongTypeMessage(root *yaml.Node, line, tag, value, goType string) string {
	n, _ := strconv.Atoi(line)
	key := keyAt(root, "", n, tag, value)
	if key == "" {
		key = "a value"
	}
	return fmt.Sprintf("line %s: %s wants %s, got %s", line, key, wantOf(goType), gotOf(tag, value))
}

// keyAt returns the dotted path (lanes.max, sites[2].name) of the value node on line
// that matches tag and value, or "".
func keyAt(n *yaml.Node, path string, line int, tag, value string) string {
	matches := func(v *yaml.Node) bool {
		if v.Line != line {
			return false
		}
		switch tag {
		case "seq":
			return v.Kind == yaml.SequenceNode
		case "map":
			return v.Kind == yaml.MappingNode
		}
		if v.Kind != yaml.ScalarNode {
			return false
		}
		if short, ok := strings.CutSuffix(value, "..."); ok {
			return strings.HasPrefix(v.Value, short)
		}
		return v.Value == value
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if k := keyAt(c, path, line, tag, value); k != "" {
				return k
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := n.Content[i].Value
			if path != "" {
				p = path + "." + p
			}
			if v := n.Content[i+1]; matches(v) {
				return p
			} else if k := keyAt(v, p, line, tag, value); k != "" {
				return k
			}
		}
	case yaml.SequenceNode:
		for i, v := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			if matches(v) {
				return p
			} else if k := keyAt(v, p, line, tag, value); k != "" {
				return k
			}
		}
	}
	return ""
}

// wantOf names a Go type as the config's shape.
func wantOf(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "a list (one \"- item\" line each, or [a, b])"
	case strings.HasPrefix(goType, "map["):
		return "a mapping (\"name: value\" lines)"
	case goType == "time.Duration":
		return "a duration with its unit, such as 500ms, 2s or 1h"
	case goType == "bool":
		return "true or false"
	case goType == "string":
		return "a single value"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"):
		return "a whole number"
	case strings.HasPrefix(goType, "float"):
		return "a number"
	}
	return "a mapping of its keys (see the config reference in README.md)"
}

// gotOf names what the file held.
func gotOf(tag, value string) string {
	switch tag {
	case "seq":
		return "a list"
	case "map":
		return "a mapping"
	case "null":
		return "nothing"
	}
	return "`" + value + "`"
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
func parseInterspersed(fs *flag.FlagSet, args []string, help io.Writer) ([]string, error) {
	var pos []string
	for {
		if err := clikit.Parse(fs, args, help); err != nil {
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

// configKeyRE matches a config key as the options' checks name it: lanes.max,
// fetch.max_body_bytes, user_agent.
var configKeyRE = regexp.MustCompile(`\b[a-z][a-z_]*(?:\.[a-z_]+)*\b`)

// flagInMessage matches the flag a check names beside its key: "(--lanes)".
var flagInMessage = regexp.MustCompile(`\(--([a-z-]+)`)

// configLine puts the file and line on err, a value the options' checks refused
// after the config decoded ("lanes.max (--lanes) must be at least 1"), when the
// key it names is in the file and was not overridden by its flag. Otherwise err
// is returned as it is.
func configLine(path string, err error, set map[string]bool) error {
	if m := flagInMessage.FindStringSubmatch(err.Error()); m != nil && set[m[1]] {
		return err // the flag's value, not the file's
	}
	data, rerr := readCapped(path, maxConfigBytes)
	if rerr != nil {
		return err
	}
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil {
		return err
	}
	parent := ""
	for _, key := range configKeyRE.FindAllString(err.Error(), -1) {
		paths := []string{key}
		if parent != "" && !strings.Contains(key, ".") {
			// "rotation.disable_for, pair_ban_for and ...": a bare key is the last
			// dotted one's sibling.
			paths = append(paths, parent+"."+key)
		}
		if i := strings.LastIndex(key, "."); i > 0 {
			parent = key[:i]
		}
		for _, p := range paths {
			if line := keyLine(&root, strings.Split(p, ".")); line > 0 {
				return fmt.Errorf("config %s: line %d: %w", path, line, err)
			}
		}
	}
	return err
}

// keyLine is the line of the key at path in a YAML document, 0 if it is not there.
func keyLine(n *yaml.Node, path []string) int {
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for i, name := range path {
		if n.Kind != yaml.MappingNode {
			return 0
		}
		var next *yaml.Node
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == name {
				if i == len(path)-1 {
					return n.Content[j].Line
				}
				next = n.Content[j+1]
				break
			}
		}
		if next == nil {
			return 0
		}
		n = next
	}
	return 0
}
