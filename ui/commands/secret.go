package commands

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Egress specs typed on the command line (`:egress add http://user:pass@host:port`)
// carry a proxy password (M3: credentials are never shown or logged). The console
// masks it wherever the line could be shown again: the input line as it is typed,
// the status line, inline errors and the command history (a line with a password
// never enters the history).

// secretMask replaces a password in text the console shows.
const secretMask = "***"

// secretSpans finds the password parts of egress specs in line, as rune index
// ranges [from, to). A password is what follows the first ':' of a URL's userinfo
// up to the last '@' (passwords may contain '@', ':' and "://"). Before any '@' is typed,
// a non-numeric "port" after "scheme://user:" is taken for a password being typed,
// as is a typo like http://user:secret; a numeric one is indistinguishable from a
// port and stays visible until the '@' comes.
func secretSpans(line []rune) [][2]int {
	var spans [][2]int
	// A page URL may have a port and a path (:seed add http://h:8080/news); an
	// egress spec never has a path, so there 1234/abc is a password being typed.
	egressLine := strings.HasPrefix(strings.TrimLeft(string(line), ": "), "egress")
	for i := 0; i+3 <= len(line); i++ {
		if string(line[i:i+3]) != "://" {
			continue
		}
		start := i + 3
		// The spec runs to the next space (specs and words are space-separated; a
		// space in a URL's userinfo is percent-encoded) or the end of the line. A
		// "://" inside a password is part of it, not another spec.
		end := len(line)
		if sp := slices.IndexFunc(line[start:], unicode.IsSpace); sp >= 0 {
			end = start + sp
		}
		seg := line[start:end]
		at := lastRune(seg, '@')
		if at >= 0 {
			if c := firstRuneIndex(seg[:at], ':'); c >= 0 && c+1 < at {
				spans = append(spans, [2]int{start + c + 1, start + at})
			}
		} else if c := firstRuneIndex(seg, ':'); c >= 0 && !strings.ContainsFunc(string(seg[:c]), unicode.IsSpace) {
			word := seg[c+1:]
			if sp := slices.IndexFunc(word, unicode.IsSpace); sp >= 0 {
				word = word[:sp]
			}
			// A port may be followed by a path, a query or, in an error text,
			// punctuation: http://h:8080/news/1 is a page, not a password typed.
			rest := strings.TrimRight(string(word), "/:;,.)")
			for _, sep := range "/?" {
				if port, _, cut := strings.Cut(rest, string(sep)); cut && port != "" && !egressLine {
					if _, err := strconv.Atoi(port); err == nil {
						rest = port
					}
				}
			}
			if _, err := strconv.Atoi(rest); err != nil && rest != "" {
				spans = append(spans, [2]int{start + c + 1, start + c + 1 + len([]rune(rest))})
			}
		}
		i = end - 1
	}
	return spans
}

func lastRune(rs []rune, r rune) int {
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i] == r {
			return i
		}
	}
	return -1
}

func firstRuneIndex(rs []rune, r rune) int {
	for i, x := range rs {
		if x == r {
			return i
		}
	}
	return -1
}

// StarSecrets hides passwords rune for rune, so an input line keeps its length and
// the cursor stays where the operator typed.
func StarSecrets(line []rune) []rune {
	spans := secretSpans(line)
	if len(spans) == 0 {
		return line
	}
	out := append([]rune(nil), line...)
	for _, s := range spans {
		for i := s[0]; i < s[1]; i++ {
			out[i] = '*'
		}
	}
	return out
}

// maskSecrets replaces passwords in s with *** (not revealing their length), for
// the status line, errors and anything else shown after the fact.
func maskSecrets(s string) string {
	rs := []rune(s)
	spans := secretSpans(rs)
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(string(rs[last:sp[0]]))
		b.WriteString(secretMask)
		last = sp[1]
	}
	b.WriteString(string(rs[last:]))
	return b.String()
}

// HasSecret reports whether line holds a password; such lines stay out of the
// command history.
func HasSecret(line string) bool { return len(secretSpans([]rune(line))) > 0 }

// secretsOf lists the passwords in line as typed and %-unescaped, so an error text
// that quotes one (a careless dialer, a proxy's echo) can be scrubbed too.
func secretsOf(line string) []string {
	rs := []rune(line)
	var out []string
	for _, sp := range secretSpans(rs) {
		raw := string(rs[sp[0]:sp[1]])
		out = append(out, raw)
		if u, err := url.PathUnescape(raw); err == nil && u != raw {
			out = append(out, u)
		}
	}
	return out
}

// scrubError returns err with every password of line masked in its text. A nil
// error stays nil.
func scrubError(err error, line string) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	for _, s := range secretsOf(line) {
		if s != "" {
			text = strings.ReplaceAll(text, s, secretMask)
		}
	}
	text = maskSecrets(text)
	if text == err.Error() {
		return err
	}
	return errors.New(text)
}
