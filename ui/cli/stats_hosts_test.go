package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/store"
)

// stats --hosts is the hosts report: per host its URLs, pages stored by status
// class, failed URLs by kind (errors apart from skips) and refusals; sorted by a
// figure, filtered, or added up per site. A host that refuses the crawl stands out.
func TestStatsHostsReport(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crawl.db")
	s, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	add := func(u, host, site string) {
		s.AddURLs([]store.URL{{URL: u, Host: host, Site: site}}, nil)
	}
	for _, p := range []string{"/", "/a", "/b"} {
		add("http://a.example"+p, "a.example", "news")
		s.SavePage(store.Page{URL: "http://a.example" + p, FetchedAt: time.Now(), Status: 200, Egress: "egress-a"}, nil, nil)
	}
	add("http://b.example/", "b.example", "news")
	add("http://b.example/x", "b.example", "news")
	add("http://b.example/ok", "b.example", "news")
	s.SavePage(store.Page{URL: "http://b.example/ok", FetchedAt: time.Now(), Status: 200, Egress: "egress-a"}, nil, nil)
	s.SetState("http://b.example/", store.Failed, 1, "refused")
	s.SetState("http://b.example/x", store.Failed, 1, "robots_disallowed")
	s.AddRefusal(store.Refusal{URL: "http://b.example/", At: time.Now(), Host: "b.example", Egress: "egress-b", Status: 429})
	add("http://c.test/", "c.test", "")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	run := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := Main(append([]string{"stats", "--db", path, "--hosts"}, args...), &out, &errb); code != 0 {
			t.Fatalf("stats --hosts %v: exit %d, stderr %q", args, code, errb.String())
		}
		return out.String()
	}
	txt := run("--sort", "refusals")
	lines := strings.Split(txt, "\n")
	if f := strings.Fields(lines[1]); len(f) < 10 || f[0] != "b.example" || f[9] != "1" {
		t.Fatalf("sorted by refusals, b.example (1 refusal) should come first:\n%s", txt)
	}
	if !strings.Contains(txt, "b.example: errors refused=1 skipped robots_disallowed=1") {
		t.Fatalf("the report should spell b.example's kinds, errors apart from skips:\n%s", txt)
	}
	if f := strings.Fields(lines[2]); len(f) < 6 || f[0] != "a.example" || f[2] != "3" || f[5] != "3" {
		t.Fatalf("a.example: 3 URLs, 3 stored, all 2xx:\n%s", txt)
	}
	if got := run("--filter", "example", "--sort", "host"); strings.Contains(got, "c.test") || !strings.Contains(got, "a.example") {
		t.Fatalf("--filter example keeps c.test or drops a.example:\n%s", got)
	}
	var rep struct {
		By    string            `json:"by"`
		Hosts []store.HostStats `json:"hosts"`
	}
	if err := json.Unmarshal([]byte(run("--by", "site", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.By != "site" || len(rep.Hosts) != 2 || rep.Hosts[0].Host != "news" || rep.Hosts[0].URLs != 6 || rep.Hosts[0].Refusals != 1 ||
		rep.Hosts[0].Status["2xx"] != 4 || rep.Hosts[1].Host != "c.test" {
		t.Fatalf("per site: %+v", rep)
	}

	// Names read from the left (HOST and each host at column 0), the egresses a
	// host's pages came through at the end of its row.
	if !strings.HasPrefix(lines[0], "HOST ") || !strings.HasPrefix(lines[1], "b.example ") || !strings.HasPrefix(lines[3], "c.test ") ||
		!strings.HasSuffix(lines[0], "EGRESSES") || !strings.HasSuffix(lines[2], "  egress-a") {
		t.Fatalf("host names should be left-aligned and the egresses last:\n%s", txt)
	}
	// Per egress: egress-a brought 4 pages of 2 hosts; the refusal came through
	// egress-b, from b.example.
	eg := run("--by", "egress")
	el := strings.Split(eg, "\n")
	if f := strings.Fields(el[1]); len(f) < 8 || f[0] != "egress-a" || f[1] != "2" || f[2] != "4" || f[3] != "4" || f[7] != "0" {
		t.Fatalf("per egress, egress-a: 2 hosts, 4 stored, all 2xx, no refusal:\n%s", eg)
	}
	if f := strings.Fields(el[2]); len(f) < 9 || f[0] != "egress-b" || f[7] != "1" || f[8] != "b.example" {
		t.Fatalf("per egress, egress-b: 1 refusal, from b.example:\n%s", eg)
	}
	var byEg struct {
		Egresses []struct {
			Egress       string   `json:"egress"`
			Stored       int64    `json:"stored"`
			Refusals     int64    `json:"refusals"`
			RefusedHosts []string `json:"refused_hosts"`
		} `json:"egresses"`
	}
	if err := json.Unmarshal([]byte(run("--by", "egress", "--json", "--sort", "refusals")), &byEg); err != nil || len(byEg.Egresses) != 2 ||
		byEg.Egresses[0].Egress != "egress-b" || byEg.Egresses[0].RefusedHosts[0] != "b.example" || byEg.Egresses[1].Stored != 4 {
		t.Fatalf("--by egress --json --sort refusals: %+v (%v)", byEg, err)
	}

	var errb bytes.Buffer
	if code := Main([]string{"stats", "--db", path, "--hosts", "--sort", "speed"}, &bytes.Buffer{}, &errb); code != ExitUsage ||
		!strings.Contains(errb.String(), `--sort "speed"`) {
		t.Fatalf("an unknown --sort: exit %d, %q", code, errb.String())
	}
}
