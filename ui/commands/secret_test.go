package commands

import (
	"errors"
	"testing"
)

func TestSecretMasking(t *testing.T) {
	tests := []struct {
		in, stars, masked string
	}{
		{"http://bob:pw@h:1", "http://bob:**@h:1", "http://bob:***@h:1"},
		{"egress add socks5://u:p@ss:w@rd@10.0.0.1:1080", "egress add socks5://u:*********@10.0.0.1:1080", "egress add socks5://u:***@10.0.0.1:1080"},
		{"http://bob:typing", "http://bob:******", "http://bob:***"},
		{"http://127.0.0.1:3128", "http://127.0.0.1:3128", "http://127.0.0.1:3128"},
		// A page with a port and a path is no password being typed (every demo
		// URL has a port: :seed add of one was starred and kept out of history).
		{"seed add http://www.river-review.com:42727/typed-page", "seed add http://www.river-review.com:42727/typed-page", "seed add http://www.river-review.com:42727/typed-page"},
		{"site add news http://h:8080/?x=1 flood", "site add news http://h:8080/?x=1 flood", "site add news http://h:8080/?x=1 flood"},
		{"site add social chirp http://h:8080?q={keyword}", "site add social chirp http://h:8080?q={keyword}", "site add social chirp http://h:8080?q={keyword}"},
		{"http://bob:typing/more", "http://bob:***********", "http://bob:***"},
		// An egress spec has no path: digits then a path there are a password typed.
		{"egress add http://user:1234/abc", "egress add http://user:********", "egress add http://user:***"},
		{":egress add http://user:1234?x", ":egress add http://user:******", ":egress add http://user:***"},
		{"http://bob@h:1", "http://bob@h:1", "http://bob@h:1"}, // user, no password
		{"bind:10.0.0.2", "bind:10.0.0.2", "bind:10.0.0.2"},
		{"a=http://x:1 b=http://u:v@y:2", "a=http://x:1 b=http://u:*@y:2", "a=http://x:1 b=http://u:***@y:2"},
		{"pause host news.test", "pause host news.test", "pause host news.test"},
		{"http://bob:ünï@h:1", "http://bob:***@h:1", "http://bob:***@h:1"},
		// A password holding "://" is one password, not the start of another spec
		// (masked as the first spec's password, not as u:*://b@h).
		{"egress add http://u:a://b@h:1", "egress add http://u:*****@h:1", "egress add http://u:***@h:1"},
		{"egress add http://u:a://b@h:1 and http://v:c@k:2", "egress add http://u:*****@h:1 and http://v:*@k:2",
			"egress add http://u:***@h:1 and http://v:***@k:2"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := string(StarSecrets([]rune(tc.in))); got != tc.stars {
				t.Errorf("starSecrets = %q, want %q", got, tc.stars)
			}
			if got := maskSecrets(tc.in); got != tc.masked {
				t.Errorf("maskSecrets = %q, want %q", got, tc.masked)
			}
			if got, want := HasSecret(tc.in), tc.masked != tc.in; got != want {
				t.Errorf("hasSecret = %v, want %v", got, want)
			}
		})
	}
	t.Run("scrubError", func(t *testing.T) {
		if scrubError(nil, "http://a:b@c:1") != nil {
			t.Fatal("nil error must stay nil")
		}
		plain := errors.New("no lane 3")
		if scrubError(plain, "rotate lane 3") != plain {
			t.Fatal("an error without a secret must pass unchanged")
		}
	})
}
