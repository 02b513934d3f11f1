package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/plural"
	"github.com/crawlconsole/crawlconsole/ui/cli/clikit"
)

const (
	// seedLineMax is the longest line of a seeds file read: twice the longest URL
	// the frontier takes, for blanks around it. A longer line is reported and
	// skipped, read through without being held.
	seedLineMax = 2 * frontier.MaxURLLength
	// seedBatch is how many seeds are held at once: the head the crawl starts with,
	// then each batch fed after the start.
	seedBatch = 10_000
	// seedReports is how many skipped lines are named one by one; the rest are
	// counted in one line.
	seedReports = 10
)

// seedLines reads a seeds file line by line in bounded memory: one URL per line,
// blank lines and #-comments skipped, over-long lines and lines that are not URLs
// to crawl passed to bad with their line number, never the whole file.
type seedLines struct {
	path string
	r    *bufio.Reader
	line int
	bad  func(line int, why string)
}

func newSeedLines(path string, r io.Reader, bad func(int, string)) *seedLines {
	return &seedLines{path: path, r: bufio.NewReaderSize(r, seedLineMax+1), bad: bad}
}

// next returns the next seed, or io.EOF after the last.
func (s *seedLines) next() (string, error) {
	for {
		raw, err := s.r.ReadSlice('\n')
		if len(raw) == 0 && err == io.EOF {
			return "", io.EOF
		}
		s.line++
		if errors.Is(err, bufio.ErrBufferFull) {
			n, err := s.skipLine(len(raw))
			s.bad(s.line, fmt.Sprintf("line is over %d bytes (%d), longer than any URL the crawl takes", seedLineMax, n))
			if err != nil {
				return "", s.readErr(err)
			}
			continue
		}
		if err != nil && err != io.EOF {
			return "", s.readErr(err)
		}
		l := strings.TrimSpace(string(raw))
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if _, nerr := frontier.Normalize(l); nerr != nil {
			s.bad(s.line, notASeed(l, nerr))
			continue
		}
		return l, nil
	}
}

// skipLine reads through the rest of an over-long line, returning its length;
// io.EOF is not an error there (the file's last line had no newline).
func (s *seedLines) skipLine(n int) (int, error) {
	for {
		b, err := s.r.ReadSlice('\n')
		n += len(b)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			return n, nil
		}
		return n, err
	}
}

func (s *seedLines) readErr(err error) error {
	return fmt.Errorf("--seeds %s: line %d: %v", s.path, s.line, err)
}

// notASeed says why raw is no seed (err, from frontier.Normalize), with the URL to
// give when it is a host without its scheme.
func notASeed(raw string, err error) string {
	if fix := clikit.SchemeFix(raw); fix != "" {
		return fmt.Sprintf("not a URL to crawl: %q has no scheme: give it as %s", strings.TrimSpace(raw), fix)
	}
	return fmt.Sprintf("not a URL to crawl: %v", err)
}

// configSeeds keeps the config's seeds that are URLs to crawl, reporting the others
// on warn as readSeeds does (the first seedReports, then a count): one line per bad
// seed, not all of them in one. A config whose seeds are all bad is refused.
func configSeeds(path string, seeds []string, warn io.Writer) ([]string, error) {
	var ok []string
	skipped := 0
	var first string
	for i, s := range seeds {
		if _, err := frontier.Normalize(strings.TrimSpace(s)); err != nil {
			skipped++
			why := fmt.Sprintf("seeds[%d]: %s", i, notASeed(s, err))
			if skipped == 1 {
				first = why
			}
			if skipped <= seedReports {
				fmt.Fprintf(warn, "crawlconsole: warning: config %s: %s: skipped\n", path, why)
			}
			continue
		}
		ok = append(ok, s)
	}
	if skipped > seedReports {
		fmt.Fprintf(warn, "crawlconsole: warning: config %s: %s skipped (not URLs), %d in all\n", path, plural.Count(skipped-seedReports, "more seed"), len(seeds))
	}
	if len(ok) == 0 && skipped > 0 {
		return nil, fmt.Errorf("config %s: none of its %s is a URL to crawl (%s)", path, plural.Count(len(seeds), "seed"), first)
	}
	return ok, nil
}

// seedList is a --seeds file: its first seedBatch seeds go in the options, and the
// rest (more) are fed to the engine once the crawl has started.
type seedList struct {
	path string
	head int  // seeds taken into the options
	more bool // the file holds more than the head
}

// readSeeds reads the head of a seeds file and checks the whole of it, streaming:
// each skipped line is reported on warn with the file and line (the first
// seedReports of them, then a count). A file with no seed at all is an error: it
// is not a seeds file.
func readSeeds(path string, warn io.Writer) ([]string, *seedList, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--seeds: %v", err)
	}
	defer f.Close()
	skipped := 0
	var first string
	lines := newSeedLines(path, f, func(line int, why string) {
		skipped++
		if skipped == 1 {
			first = fmt.Sprintf("line %d: %s", line, why)
		}
		if skipped <= seedReports {
			fmt.Fprintf(warn, "crawlconsole: warning: --seeds %s:%d: %s: skipped\n", path, line, why)
		}
	})
	var head []string
	total := 0
	for {
		s, err := lines.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if total < seedBatch {
			head = append(head, s)
		}
		total++
	}
	if skipped > seedReports {
		fmt.Fprintf(warn, "crawlconsole: warning: --seeds %s: %s skipped (over-long or not URLs), %s in all\n",
			path, plural.Count(skipped-seedReports, "more line"), plural.Count(lines.line, "line"))
	}
	if total == 0 && skipped > 0 {
		return nil, nil, fmt.Errorf("--seeds %s: none of its %s is a URL to crawl (%s)", path, plural.Count(lines.line, "line"), first)
	}
	if total == 0 {
		// An empty list (a script that wrote none) is a mistake to say, not a crawl to
		// start without seeds: on a new store the error would blame missing seed
		// arguments, on an old one the crawl would resume as if the file were read.
		return nil, nil, fmt.Errorf("--seeds %s: no URL in it (%s, blank or # comments): give one URL per line", path, plural.Count(lines.line, "line"))
	}
	return head, &seedList{path: path, head: len(head), more: total > len(head)}, nil
}

// feed queues the seeds after the head, seedBatch at a time, reading the file again
// (its skipped lines were reported by readSeeds). It ends when the file does or ctx
// is done, and closes f.
func (l *seedList) feed(ctx context.Context, f *engine.SeedFeed) {
	var err error
	defer func() { f.Close(err) }()
	file, err := os.Open(l.path)
	if err != nil {
		return
	}
	defer file.Close()
	lines := newSeedLines(l.path, file, func(int, string) {})
	skip := l.head
	batch := make([]string, 0, seedBatch)
	for ctx.Err() == nil {
		s, rerr := lines.next()
		if rerr != nil && rerr != io.EOF {
			err = rerr
			return
		}
		if rerr == nil {
			if skip > 0 {
				skip--
				continue
			}
			batch = append(batch, s)
		}
		if len(batch) == seedBatch || (rerr == io.EOF && len(batch) > 0) {
			if err = f.Queue(batch); err != nil {
				return
			}
			batch = batch[:0]
		}
		if rerr == io.EOF {
			return
		}
	}
}
