package cluster

import (
	"errors"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/cluster/embedded"
)

func TestTLS(t *testing.T) {
	t.Parallel()
	pki := newTestPKI(t)
	other := newTestPKI(t) // a CA that did not sign the master's certificate
	s, _ := startTestServer(t, func(o *embedded.Options) { o.TLSCert, o.TLSKey = pki.CertFile, pki.KeyFile })
	if !strings.HasPrefix(s.ClientURL(), "tls://127.0.0.1:") {
		t.Fatalf("ClientURL = %q; want tls://127.0.0.1:<port>", s.ClientURL())
	}
	plain := "nats://" + strings.TrimPrefix(s.ClientURL(), "tls://")
	tests := []struct {
		name, url, ca string
		want          []string // substrings of the error; none means success
	}{
		{"trusted CA", s.ClientURL(), pki.CAFile, nil},
		{"trusted CA, nats:// URL", plain, pki.CAFile, nil},
		{"no CA", s.ClientURL(), "", []string{"--ca", "certificate"}},
		{"no CA, nats:// URL", plain, "", []string{"--ca", "certificate"}},
		{"other CA", s.ClientURL(), other.CAFile, []string{"--ca " + other.CAFile, "not trusted"}},
		{"CA file missing", s.ClientURL(), pki.CAFile + ".missing", []string{"--ca", ".missing"}},
		{"CA file not PEM", s.ClientURL(), pki.KeyFile + "x", []string{"--ca"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Connect(tc.url, ClientOptions{Token: testToken, CAFile: tc.ca})
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Connect: %v", err)
				}
				c.Close()
				return
			}
			if err == nil {
				c.Close()
				t.Fatal("Connect succeeded; want a TLS error")
			}
			if errors.Is(err, ErrAuth) {
				t.Fatalf("err = %v; a trust failure is not an auth failure", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
	t.Run("wrong token over TLS", func(t *testing.T) {
		_, err := Connect(s.ClientURL(), ClientOptions{Token: "nope", CAFile: pki.CAFile})
		if !errors.Is(err, ErrAuth) {
			t.Fatalf("err = %v; want ErrAuth", err)
		}
	})
}

func TestTLSWantedButMasterIsPlain(t *testing.T) {
	t.Parallel()
	pki := newTestPKI(t)
	s, _ := startTestServer(t, nil)
	_, err := Connect(s.ClientURL(), ClientOptions{Token: testToken, CAFile: pki.CAFile})
	if err == nil || !strings.Contains(err.Error(), "does not use TLS") {
		t.Fatalf("err = %v; want \"does not use TLS\"", err)
	}
}
