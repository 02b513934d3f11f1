package egress

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
)

// mask is what every printed form of a secret shows.
const mask = "***"

// Secret is an egress password. It prints as "***" in every form (String, all fmt
// verbs, slog, JSON); only Reveal and Persisted give the real text. The value lives
// in a closure: a struct holding a Secret in an unexported field (where fmt cannot
// call Format) prints a func address, and no reflection-based printer can reach it.
type Secret struct {
	ref string        // "${env:NAME}" or "${file:/path}" when the secret came from a reference
	v   func() string // nil when no password was given
}

func hold(s string) func() string { return func() string { return s } }

// NewSecret wraps a literal password; an empty string means no password.
func NewSecret(password string) Secret {
	if password == "" {
		return Secret{}
	}
	return Secret{v: hold(password)}
}

// ParseSecret reads a password as written in a spec or an account store: a literal,
// or a ${env:NAME} / ${file:/path} reference that is resolved now. Errors never
// contain the password.
func ParseSecret(text string) (Secret, error) {
	if !strings.HasPrefix(text, "${") {
		return NewSecret(text), nil
	}
	if !strings.HasSuffix(text, "}") {
		return Secret{}, fmt.Errorf("secret reference must look like ${env:NAME} or ${file:/path}")
	}
	kind, arg, ok := strings.Cut(text[2:len(text)-1], ":")
	if !ok || arg == "" {
		return Secret{}, fmt.Errorf("secret reference must look like ${env:NAME} or ${file:/path}")
	}
	var value string
	switch kind {
	case "env":
		v, set := os.LookupEnv(arg)
		if !set {
			return Secret{}, fmt.Errorf("secret reference ${env:%s}: variable is not set", arg)
		}
		value = v
	case "file":
		b, err := readSecretFile(arg)
		if err != nil {
			return Secret{}, fmt.Errorf("secret reference ${file:%s}: %w", arg, err)
		}
		value = strings.TrimRight(string(b), "\r\n")
	default:
		return Secret{}, fmt.Errorf("secret reference ${%s:...}: unknown source (want env or file)", kind)
	}
	if value == "" {
		return Secret{}, fmt.Errorf("secret reference %s is empty", text)
	}
	return Secret{ref: text, v: hold(value)}, nil
}

// readSecretFile reads at most 4 KiB: a password file, not a data file. Errors are
// the OS's (they name the path, never the content).
func readSecretFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 4096))
}

// IsSet reports whether a password was given.
func (s Secret) IsSet() bool { return s.v != nil }

// Reveal returns the password itself, for talking to the proxy. Nothing that is
// shown or logged may call it.
func (s Secret) Reveal() string {
	if s.v == nil {
		return ""
	}
	return s.v()
}

// Ref returns the ${env:...}/${file:...} reference the secret came from, or "" for a
// literal. A reference is not secret and may be shown.
func (s Secret) Ref() string { return s.ref }

// Persisted is what an AccountStore saves: the reference when there is one (so the
// password is not copied into the store), else the literal. ParseSecret reads it back
// (a literal password that itself starts with "${" would read back as a reference).
func (s Secret) Persisted() string {
	if s.ref != "" {
		return s.ref
	}
	return s.Reveal()
}

// String shows "***" when a password is set, "" otherwise.
func (s Secret) String() string {
	if s.v == nil {
		return ""
	}
	return mask
}

// GoString keeps %#v masked too.
func (s Secret) GoString() string { return `"` + s.String() + `"` }

// Format masks every fmt verb (%v %+v %#v %s %q %x ...).
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'q' || (verb == 'v' && f.Flag('#')) {
		io.WriteString(f, s.GoString())
		return
	}
	io.WriteString(f, s.String())
}

// LogValue keeps slog masked.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON keeps JSON masked; stores must use Persisted.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }
