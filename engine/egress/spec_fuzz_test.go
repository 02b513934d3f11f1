package egress

import "testing"

// FuzzParseSpec: any spec text parses or gives an error, never a panic, and the
// masked form of a spec does not depend on its password in any way.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"bind:192.0.2.10", "http://u:secret@h:3128", "socks5://u:p://w@h:1080", "vpn=http://u:pä$$@h:1",
		"http://u:${env:X}@h:1", "http://h", "bind:", "ftp://u:pw@h:1", "http://u:@h:1", "http://:pw@h:1", "http://u:sec ret@h:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseSpec(text)
		if err != nil || !s.Secret.IsSet() {
			return
		}
		other := s
		other.Secret = NewSecret("a-different-password")
		if s.Masked() != other.Masked() || s.String() != other.String() {
			t.Fatalf("the masked spec depends on the password: %q vs %q", s.Masked(), other.Masked())
		}
	})
}
