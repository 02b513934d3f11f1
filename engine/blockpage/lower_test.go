package blockpage

import (
	"bytes"
	"net/http"
	"runtime"
	"strings"
	"testing"
)

// TestAppendLowerIsBytesToLower: the pooled lowering forms the very bytes
// bytes.ToLower formed, so every marker (Cyrillic, German, CJK) matches as before,
// including on bodies with invalid UTF-8 and runes whose lower case is longer.
func TestAppendLowerIsBytesToLower(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		{"ascii", "Just A Moment... <TITLE>Access Denied</TITLE>"},
		{"cyrillic", "ДОСТУП ЗАПРЕЩЁН: НЕОБЫЧНЫЙ ТРАФИК"},
		{"german", "UNGEWÖHNLICHER DATENVERKEHR"},
		{"cjk", "访问过于频繁，请稍后再试"},
		{"longer lower case", "İSTANBUL Ⱥ"},
		{"invalid bytes", "ACCESS \xff\xfe DENIED \xc3"},
		{"empty", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := bytes.ToLower([]byte(tc.in))
			if got := appendLower(nil, []byte(tc.in)); !bytes.Equal(got, want) {
				t.Fatalf("appendLower(%q) = %q, bytes.ToLower gives %q", tc.in, got, want)
			}
		})
	}
}

// TestJudgeDoesNotCopyEveryBody: judging an ordinary page costs no copy of its
// scanned head (bytes.ToLower allocated 8 KiB a page, a tenth of the judge's CPU
// in a crawl), whether or not the fetcher counted its links.
func TestJudgeDoesNotCopyEveryBody(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation bounds do not hold under the race detector")
	}
	body := []byte("<html><head><title>City news</title></head><body>" +
		strings.Repeat(`<p>The council met on Tuesday to discuss the budget. <a href="/x">more</a></p>`, 400) + "</body></html>")
	for _, links := range []int{400, -1} {
		a := Answer{URL: "http://news.test/a", Host: "news.test", Status: 200,
			Header: http.Header{"Content-Type": {"text/html"}}, Body: body, BodyLen: int64(len(body)), Links: links}
		Judge(a, nil) // warm the pool
		var before, after runtime.MemStats
		const runs = 50
		runtime.ReadMemStats(&before)
		for range runs {
			if v := Judge(a, nil); v.Refusal() {
				t.Fatalf("links %d: ordinary page judged %v", links, v)
			}
		}
		runtime.ReadMemStats(&after)
		if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > scanMax/4 {
			t.Errorf("links %d: judging an ordinary page allocates %d B, want under %d B (no copy of the %d B head)", links, per, scanMax/4, scanMax)
		}
	}
}

// TestLinkedPageBodyIsNotScanned: a 200 that the fetcher found full of links is no
// refusal whatever its body says (every piece of body evidence counts only on a page
// that leads nowhere), while the same marker on a page that leads nowhere, or whose
// links were not counted, still is.
func TestLinkedPageBodyIsNotScanned(t *testing.T) {
	blocked := []byte(`<html><head><title>Just a moment...</title></head><body>` +
		`<script>window._cf_chl_opt={};</script>Checking your browser</body></html>`)
	for _, tc := range []struct {
		name  string
		links int
		want  bool
	}{
		{"many links", 40, false},
		{"few links", 1, true},
		{"links not counted", -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := Answer{URL: "http://news.test/a", Host: "news.test", Status: 200,
				Header: http.Header{"Content-Type": {"text/html"}}, Body: blocked, BodyLen: int64(len(blocked)), Links: tc.links}
			if v := Judge(a, nil); v.Refusal() != tc.want {
				t.Fatalf("Judge = %v, want refusal %v", v, tc.want)
			}
		})
	}
}
