package egress

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Kind is how an egress leaves the box.
type Kind string

// Egress kinds (M3).
const (
	KindBind   Kind = "bind"   // local source address
	KindHTTP   Kind = "http"   // HTTP proxy
	KindSOCKS5 Kind = "socks5" // SOCKS5 proxy
)

// Spec is one parsed egress: what ParseSpec makes of "bind:IP",
// "http://[user:pass@]host:port" or "socks5://[user:pass@]host:port". Printing a Spec
// in any way shows the password as "***".
type Spec struct {
	Name    string // e1, e2, ... unless given as NAME=SPEC
	Kind    Kind   //
	Address string // bind: the source IP; proxies: host:port of the proxy
	User    string // proxy user, "" for none
	Secret  Secret // proxy password, masked everywhere
}

// SpecError is a spec that cannot be used. Its text names the egress by name and
// masked spec and never contains the password.
type SpecError struct {
	Name   string // egress name, "" when not known yet
	Masked string // the spec text with any password replaced by ***
	Reason string // what is wrong, written without quoting the input
}

// Error names the egress and says what is wrong.
func (e *SpecError) Error() string {
	if e.Name != "" {
		return fmt.Sprintf("egress %s (%s): %s", e.Name, e.Masked, e.Reason)
	}
	return fmt.Sprintf("egress %s: %s", e.Masked, e.Reason)
}

// ParseSpec parses one egress spec, optionally prefixed with "NAME=". Without a name
// the Spec's Name is empty; ParseSpecs and Table.Add assign e1, e2, ... Secret
// references (${env:...}, ${file:...}) are resolved now.
func ParseSpec(s string) (Spec, error) {
	return parseSpec(strings.TrimSpace(s), "", false)
}

// ErrSessionSecretRef is the reason a spec from a console session (`:egress add`,
// locally or over SSH) is refused when its password is a ${env:...}/${file:...}
// reference: resolving it would read the server's environment or files and send
// them as proxy credentials to an address the session chose. References belong to
// the config file and command line of whoever starts the process.
const ErrSessionSecretRef = "secret references (${env:...}, ${file:...}) are refused from a console session: " +
	"they would read the server's environment or files; give them in the config file or on the command line"

// ParseSessionSpec parses a spec given from a console session: as ParseSpec, but a
// ${env:...}/${file:...} password reference is refused (never resolved). A literal
// password is allowed.
func ParseSessionSpec(s string) (Spec, error) {
	return parseSpec(strings.TrimSpace(s), "", true)
}

// ParseSpecs parses a list of specs (e.g. repeated --egress flags), naming the
// unnamed ones e1, e2, ... by position and refusing duplicate names.
func ParseSpecs(list []string) ([]Spec, error) {
	out := make([]Spec, 0, len(list))
	seen := map[string]bool{}
	for i, s := range list {
		sp, err := parseSpec(strings.TrimSpace(s), "e"+strconv.Itoa(i+1), false)
		if err != nil {
			return nil, err
		}
		if seen[sp.Name] {
			return nil, &SpecError{Name: sp.Name, Masked: sp.Masked(), Reason: "name used twice"}
		}
		seen[sp.Name] = true
		out = append(out, sp)
	}
	return out, nil
}

// parseSpec parses one spec; session refuses secret references (ParseSessionSpec).
func parseSpec(s, defaultName string, session bool) (Spec, error) {
	name, body := splitName(s)
	if name == "" {
		name = defaultName
	}
	fail := func(reason string) (Spec, error) {
		return Spec{}, &SpecError{Name: name, Masked: maskRaw(body), Reason: reason}
	}
	if body == "" {
		return fail("empty spec (want bind:IP, http://[user:pass@]host:port or socks5://[user:pass@]host:port)")
	}
	if ip, ok := strings.CutPrefix(body, "bind:"); ok {
		addr, err := netip.ParseAddr(ip)
		if err != nil || addr.Zone() != "" {
			return fail("bind needs a local IP address, like bind:10.8.0.2")
		}
		return Spec{Name: name, Kind: KindBind, Address: addr.Unmap().String()}, nil
	}
	scheme, rest, ok := strings.Cut(body, "://")
	if !ok {
		return fail("unknown kind (want bind:IP, http://... or socks5://...)")
	}
	var kind Kind
	switch strings.ToLower(scheme) {
	case "http":
		kind = KindHTTP
	case "socks5", "socks5h":
		kind = KindSOCKS5
	case "https":
		return fail("TLS to the proxy itself is not supported; use http:// (https targets still go through CONNECT)")
	default:
		return fail("unknown proxy scheme (want http or socks5)")
	}
	rest = strings.TrimSuffix(rest, "/")
	sp := Spec{Name: name, Kind: kind}
	hostport := rest
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		userinfo := rest[:at]
		hostport = rest[at+1:]
		user, pass, hasPass := strings.Cut(userinfo, ":")
		u, err := url.PathUnescape(user)
		if err != nil {
			return fail("user name has a bad %-escape")
		}
		sp.User = u
		if hasPass {
			if session && (strings.HasPrefix(pass, "${") || strings.HasPrefix(strings.ToLower(pass), "%24%7b")) {
				return fail(ErrSessionSecretRef)
			}
			if strings.HasPrefix(pass, "${") {
				sec, err := ParseSecret(pass)
				if err != nil {
					return fail(err.Error()) // about the reference, which is not secret
				}
				sp.Secret = sec
			} else {
				p, err := url.PathUnescape(pass)
				if err != nil {
					return fail("password has a bad %-escape")
				}
				sp.Secret = NewSecret(p)
			}
		}
		if sp.User == "" && sp.Secret.IsSet() {
			return fail("password given without a user name")
		}
	}
	if strings.ContainsAny(hostport, "/?#") {
		return fail("proxy address must be host:port with no path")
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil || host == "" {
		return fail("proxy address must be host:port")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fail("proxy port must be a number 1-65535")
	}
	sp.Address = net.JoinHostPort(host, port)
	return sp, nil
}

// splitName splits an optional "NAME=" prefix. A '=' inside a password comes after
// "://", so it never looks like a valid name prefix.
func splitName(s string) (name, body string) {
	n, b, ok := strings.Cut(s, "=")
	if !ok || !validName(n) {
		return "", s
	}
	return n, strings.TrimSpace(b)
}

// validName accepts short names usable as console labels and :egress rm arguments.
func validName(n string) bool {
	if n == "" || len(n) > 32 {
		return false
	}
	for i, r := range n {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case i > 0 && (r == '_' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return true
}

// maskRaw hides anything that may be a password in spec text that did not parse:
// the part between the first ':' of the userinfo and the last '@', or, with no '@',
// a non-numeric "port" (as in the typo http://user:secret).
func maskRaw(s string) string {
	start := 0
	if i := strings.Index(s, "://"); i >= 0 {
		start = i + 3
	}
	at := strings.LastIndex(s, "@")
	if at >= start {
		userinfo := s[start:at]
		if c := strings.IndexByte(userinfo, ':'); c >= 0 {
			return s[:start] + userinfo[:c] + ":" + mask + s[at:]
		}
		return s
	}
	if c := strings.LastIndexByte(s, ':'); c >= start && start > 0 {
		port := strings.TrimSuffix(s[c+1:], "/")
		if _, err := strconv.Atoi(port); err != nil && port != "" {
			return s[:c+1] + mask
		}
	}
	return s
}

// Masked is the spec as the console and logs show it: "bind:10.8.0.2",
// "socks5://bob:***@10.0.0.5:1080".
func (s Spec) Masked() string {
	if s.Kind == KindBind {
		return "bind:" + s.Address
	}
	var b strings.Builder
	b.WriteString(string(s.Kind))
	b.WriteString("://")
	if s.User != "" {
		b.WriteString(url.PathEscape(s.User))
		if s.Secret.IsSet() {
			b.WriteString(":" + mask)
		}
		b.WriteString("@")
	}
	b.WriteString(s.Address)
	return b.String()
}

// String is Masked.
func (s Spec) String() string { return s.Masked() }

// GoString keeps %#v masked.
func (s Spec) GoString() string {
	return fmt.Sprintf("egress.Spec{Name:%q, Kind:%q, Address:%q, User:%q, Secret:%s}",
		s.Name, s.Kind, s.Address, s.User, s.Secret.GoString())
}

// Format masks every fmt verb: %v and %s print Masked, %+v "NAME=masked", %#v a
// Go-syntax form with Secret:"***", %q the quoted masked spec.
func (s Spec) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('#'):
		io.WriteString(f, s.GoString())
	case verb == 'v' && f.Flag('+'):
		io.WriteString(f, s.Name+"="+s.Masked())
	case verb == 'q':
		io.WriteString(f, strconv.Quote(s.Masked()))
	default:
		io.WriteString(f, s.Masked())
	}
}

// LogValue keeps slog masked.
func (s Spec) LogValue() slog.Value {
	return slog.GroupValue(slog.String("name", s.Name), slog.String("kind", string(s.Kind)),
		slog.String("spec", s.Masked()))
}

// MarshalJSON keeps JSON masked.
func (s Spec) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name string `json:"name"`
		Kind Kind   `json:"kind"`
		Spec string `json:"spec"`
	}{s.Name, s.Kind, s.Masked()})
}
