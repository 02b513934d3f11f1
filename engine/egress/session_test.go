package egress

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSessionSpecRefusesSecretReferences: a spec from a console session (Table.Add,
// the `:egress add` path, and ParseSessionSpec) may not carry a ${env:}/${file:}
// reference: it is refused without being resolved, and nothing joins the table. A
// literal password and the start-up path (ParseSpec/ParseSpecs) still work.
func TestSessionSpecRefusesSecretReferences(t *testing.T) {
	t.Setenv("EGRESS_SESSION_PASS", secretWord)
	passFile := filepath.Join(t.TempDir(), "server.pass")
	if err := os.WriteFile(passFile, []byte(secretWord+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	store := &MemoryStore{}
	table, err := OpenTable(store, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{
		"http://x:${env:EGRESS_SESSION_PASS}@203.0.113.7:3128",
		"http://x:${file:" + passFile + "}@203.0.113.7:3128",
		"leak=socks5://x:${file:" + passFile + "}@203.0.113.7:1080",
		"http://x:${env:EGRESS_SESSION_UNSET_VAR}@203.0.113.7:3128",
		"http://x:%24%7Benv:EGRESS_SESSION_PASS%7D@203.0.113.7:3128",
	} {
		if _, err := ParseSessionSpec(spec); err == nil || !strings.Contains(err.Error(), "refused from a console session") {
			t.Errorf("ParseSessionSpec(%s) = %v, want the session refusal", spec, err)
		}
		_, err := table.Add(spec)
		if err == nil || !strings.Contains(err.Error(), "refused from a console session") {
			t.Errorf("Table.Add(%s) = %v, want the session refusal", spec, err)
		} else if strings.Contains(err.Error(), secretWord) {
			t.Errorf("the refusal shows the secret: %v", err)
		}
	}
	if n := len(table.Accounts()); n != 0 {
		t.Fatalf("%d accounts joined the table from refused specs", n)
	}
	a, err := table.Add("http://bob:" + secretWord + "@203.0.113.7:3128")
	if err != nil || a.Secret.Reveal() != secretWord {
		t.Fatalf("a literal password from a session: %v", err)
	}
	// The person starting the process may still use references.
	sp, err := ParseSpec("http://x:${env:EGRESS_SESSION_PASS}@203.0.113.7:3128")
	if err != nil || sp.Secret.Reveal() != secretWord {
		t.Fatalf("ParseSpec with a reference: %v", err)
	}
}
