package egress

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secretWord is the password every secrets test hunts for.
const secretWord = "hunter2-S3cr3t"

func TestParseSpec(t *testing.T) {
	t.Setenv("EGRESS_TEST_PASS", secretWord)
	passFile := filepath.Join(t.TempDir(), "vpn.pass")
	if err := os.WriteFile(passFile, []byte(secretWord+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in                string
		name, addr, user  string
		kind              Kind
		pass, ref, masked string
	}{
		{in: "bind:10.8.0.2", kind: KindBind, addr: "10.8.0.2", masked: "bind:10.8.0.2"},
		{in: "bind:fd00::2", kind: KindBind, addr: "fd00::2", masked: "bind:fd00::2"},
		{in: "wg0=bind:10.8.0.3", name: "wg0", kind: KindBind, addr: "10.8.0.3", masked: "bind:10.8.0.3"},
		{in: "http://127.0.0.1:3128", kind: KindHTTP, addr: "127.0.0.1:3128", masked: "http://127.0.0.1:3128"},
		{in: "http://proxy.example:8080/", kind: KindHTTP, addr: "proxy.example:8080", masked: "http://proxy.example:8080"},
		{in: "http://bob:" + secretWord + "@10.0.0.5:3128", kind: KindHTTP, addr: "10.0.0.5:3128", user: "bob",
			pass: secretWord, masked: "http://bob:***@10.0.0.5:3128"},
		{in: "socks5://bob@10.0.0.5:1080", kind: KindSOCKS5, addr: "10.0.0.5:1080", user: "bob", masked: "socks5://bob@10.0.0.5:1080"},
		{in: "vpn1=socks5://bob:p%40ss:w=rd@[::1]:1080", name: "vpn1", kind: KindSOCKS5, addr: "[::1]:1080", user: "bob",
			pass: "p@ss:w=rd", masked: "socks5://bob:***@[::1]:1080"},
		{in: "socks5://bob:a@b@10.0.0.5:1080", kind: KindSOCKS5, addr: "10.0.0.5:1080", user: "bob", pass: "a@b",
			masked: "socks5://bob:***@10.0.0.5:1080"},
		{in: "socks5://bob:${env:EGRESS_TEST_PASS}@10.0.0.5:1080", kind: KindSOCKS5, addr: "10.0.0.5:1080", user: "bob",
			pass: secretWord, ref: "${env:EGRESS_TEST_PASS}", masked: "socks5://bob:***@10.0.0.5:1080"},
		{in: "http://bob:${file:" + passFile + "}@10.0.0.5:3128", kind: KindHTTP, addr: "10.0.0.5:3128", user: "bob",
			pass: secretWord, ref: "${file:" + passFile + "}", masked: "http://bob:***@10.0.0.5:3128"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			s, err := ParseSpec(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if s.Name != tc.name || s.Kind != tc.kind || s.Address != tc.addr || s.User != tc.user ||
				s.Secret.Reveal() != tc.pass || s.Secret.Ref() != tc.ref || s.Masked() != tc.masked {
				t.Fatalf("got name=%q kind=%s addr=%q user=%q ref=%q masked=%q (password right: %v)",
					s.Name, s.Kind, s.Address, s.User, s.Secret.Ref(), s.Masked(), s.Secret.Reveal() == tc.pass)
			}
			if tc.ref != "" && s.Secret.Persisted() != tc.ref {
				t.Fatalf("Persisted() = %q, want the reference, not the password", s.Secret.Persisted())
			}
		})
	}
}

// badSpecs each contain secretWord somewhere the parser might echo it.
func badSpecs(t *testing.T) []string {
	return []string{
		"",
		"bind:not-an-ip",
		"ftp://bob:" + secretWord + "@h:21",
		"https://bob:" + secretWord + "@h:443",
		"http://bob:" + secretWord + "@h",
		"http://bob:" + secretWord + "@h:99999",
		"http://bob:" + secretWord + "@h:port",
		"http://bob:" + secretWord + "@:8080",
		"http://bob:" + secretWord + "@h:8080/path",
		"http://bob:" + secretWord + "%zz@h:8080",
		"http://:" + secretWord + "@h:8080",
		"http://bob:" + secretWord, // forgot the host: the password looks like a port
		"socks5://bob:${env:EGRESS_UNSET_VAR}@h:1080",
		"socks5://bob:${file:/nonexistent/pass}@h:1080",
		"socks5://bob:${vault:x}@h:1080",
		"bob:" + secretWord + "@h:1080", // forgot the scheme
		"e1=http://bob:" + secretWord + "@h:x",
	}
}

// TestSpecErrorsNeverShowSecret: every parse error names the egress and what is
// wrong, and never contains the password.
func TestSpecErrorsNeverShowSecret(t *testing.T) {
	for _, in := range badSpecs(t) {
		t.Run(in, func(t *testing.T) {
			_, err := ParseSpec(in)
			if err == nil {
				t.Fatal("parsed; want an error")
			}
			if strings.Contains(err.Error(), secretWord) {
				t.Fatalf("error shows the password: %v", err)
			}
			if !strings.HasPrefix(err.Error(), "egress ") {
				t.Fatalf("error does not name the egress: %v", err)
			}
			_, err = ParseSpecs([]string{"bind:10.0.0.1", in})
			if err == nil || !strings.HasPrefix(err.Error(), "egress ") || strings.Contains(err.Error(), secretWord) {
				t.Fatalf("ParseSpecs error = %v", err)
			}
			if !strings.Contains(err.Error(), "e2") && !strings.HasPrefix(in, "e1=") {
				t.Fatalf("ParseSpecs error does not name the egress e2: %v", err)
			}
		})
	}
}

func TestParseSpecsNames(t *testing.T) {
	specs, err := ParseSpecs([]string{"bind:10.0.0.1", "vpn=http://h:1", "socks5://h:2"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "e1,vpn,e3" {
		t.Fatalf("names = %s, want e1,vpn,e3", got)
	}
	if _, err := ParseSpecs([]string{"a=bind:10.0.0.1", "a=bind:10.0.0.2"}); err == nil {
		t.Fatal("duplicate names accepted")
	}
}

// TestSecretNeverPrinted: a spec, its secret and an account print masked in every
// fmt verb, slog handler and JSON, also when nested in other structs.
func TestSecretNeverPrinted(t *testing.T) {
	s, err := ParseSpec("vpn=socks5://bob:" + secretWord + "@10.0.0.5:1080")
	if err != nil {
		t.Fatal(err)
	}
	acct := accountOf(s)
	type wrapper struct {
		Spec    Spec
		spec    Spec // unexported: fmt cannot call its methods
		Account Account
		acct    Account
		Ptr     *Spec
	}
	w := wrapper{s, s, acct, acct, &s}
	var outputs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%T %[1]v", "%10v", "%-30s"} {
		for _, v := range []any{s, &s, s.Secret, &s.Secret, acct, &acct, w, &w, []Spec{s}, map[string]Spec{"k": s}, New(s)} {
			outputs = append(outputs, verb+" "+fmt.Sprintf(verb, v))
		}
	}
	outputs = append(outputs, s.String(), s.Masked(), fmt.Sprint(s), fmt.Sprintln(acct), s.Secret.String())
	for _, v := range []any{s, acct, w, []Account{acct}, s.Secret} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		outputs = append(outputs, "json "+string(b))
	}
	var logs strings.Builder
	for _, h := range []slog.Handler{slog.NewTextHandler(&logs, nil), slog.NewJSONHandler(&logs, nil)} {
		slog.New(h).Info("egress", "spec", s, "secret", s.Secret, "account", acct, "wrapped", w)
	}
	outputs = append(outputs, logs.String())
	for _, out := range outputs {
		if strings.Contains(out, secretWord) {
			t.Errorf("password printed: %s", out)
		}
	}
	if !strings.Contains(fmt.Sprintf("%+v", s), "vpn=socks5://bob:***@10.0.0.5:1080") {
		t.Errorf("%%+v = %+v, want the masked spec with its name", s)
	}
	if s.Secret.Reveal() != secretWord {
		t.Fatal("Reveal lost the password")
	}
}
