package clikit

import (
	"flag"
	"strings"
	"testing"
)

// TestParseNamesTheFlagATypoMeant: a misspelt flag is answered with the flag it was
// likely meant to be, as a misspelt config key is; one like no flag gets none.
func TestParseNamesTheFlagATypoMeant(t *testing.T) {
	for _, c := range []struct{ arg, want string }{
		{"--headles", "did you mean --headless?"},
		{"--untilidle", "did you mean --until-idle?"},
		{"-sed", "did you mean --seeds?"},
		{"--zzzzzzzz", ""},
	} {
		fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
		fs.Bool("headless", false, "")
		fs.Bool("until-idle", false, "")
		fs.String("seeds", "", "")
		fs.String("db", "", "")
		var out strings.Builder
		fs.SetOutput(&out)
		if err := Parse(fs, []string{c.arg}, &strings.Builder{}); err == nil {
			t.Fatalf("%s: parsed", c.arg)
		}
		got := out.String()
		if !strings.Contains(got, "flag provided but not defined") {
			t.Errorf("%s: the error is not said: %q", c.arg, got)
		}
		if c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%s: %q does not say %q", c.arg, got, c.want)
		}
		if c.want == "" && strings.Contains(got, "did you mean") {
			t.Errorf("%s: a flag like no other is given a guess: %q", c.arg, got)
		}
	}
}

// TestParseSaysWhatAValueWants: a bad value for a duration or number flag is answered
// with how to write one (`--duration 5` wants its unit), not the flag package's bare
// "parse error".
func TestParseSaysWhatAValueWants(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--duration", "5"}, `invalid value "5" for flag -duration: want a duration with its unit, e.g. 90s, 10m or 1h30m`},
		{[]string{"--top", "ten"}, `invalid value "ten" for flag -top: want a whole number`},
		{[]string{"--scale", "fast"}, `invalid value "fast" for flag -scale: want a number, e.g. 0.5`},
	} {
		fs := flag.NewFlagSet("demo", flag.ContinueOnError)
		fs.Duration("duration", 0, "")
		fs.Int("top", 0, "")
		fs.Float64("scale", 1, "")
		var out strings.Builder
		fs.SetOutput(&out)
		if err := Parse(fs, c.args, &strings.Builder{}); err == nil {
			t.Fatalf("%v: parsed", c.args)
		}
		if got := out.String(); !strings.Contains(got, c.want) || strings.Contains(got, "parse error") {
			t.Errorf("%v: %q does not say %q", c.args, got, c.want)
		}
	}
}

// A host written without its scheme is answered with the URL to give; what is no
// host (another scheme, a bare word, a path) gets no guess.
func TestSchemeFixNamesTheURLToGive(t *testing.T) {
	for raw, want := range map[string]string{
		"example.com:8080/":       "http://example.com:8080/",
		"example.com/a?b=1":       "http://example.com/a?b=1",
		"localhost:8080":          "http://localhost:8080",
		"127.0.0.1:4000/x":        "http://127.0.0.1:4000/x",
		"www.example.org":         "http://www.example.org",
		"http://example.com/":     "",
		"mailto:bob@example.com":  "",
		"javascript:alert(1)":     "",
		"ftp:files":               "",
		"news":                    "",
		"/path/only":              "",
		"data:text/html,hi there": "",
	} {
		if got := SchemeFix(raw); got != want {
			t.Errorf("SchemeFix(%q) = %q, want %q", raw, got, want)
		}
	}
}
