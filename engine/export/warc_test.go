package export_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"encoding/base32"
	"encoding/json"

	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/crawlconsole/crawlconsole/engine/export"
	"github.com/crawlconsole/crawlconsole/store"
)

// warcRecord is one record as this test's own reader parses it: standard library
// gzip and text parsing only, nothing shared with the writer.
type warcRecord struct {
	file   string
	header map[string][]string // field name lower-case -> values
	block  []byte
}

func (r warcRecord) get(name string) string {
	if v := r.header[strings.ToLower(name)]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// readWARC reads every gzip member of a .warc.gz as one record, and fails the test if
// a member holds anything but exactly one well-formed record.
func readWARC(t *testing.T, path string) []warcRecord {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []warcRecord
	br := bytes.NewReader(raw)
	for br.Len() > 0 {
		zr, err := gzip.NewReader(br)
		if err != nil {
			t.Fatalf("%s: gzip member %d: %v", path, len(out), err)
		}
		zr.Multistream(false) // gzip per record: one member, one record
		member, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s: gzip member %d: %v", path, len(out), err)
		}
		rec := parseRecord(t, member)
		rec.file = filepath.Base(path)
		out = append(out, rec)
	}
	return out
}

func parseRecord(t *testing.T, member []byte) warcRecord {
	t.Helper()
	head, rest, ok := bytes.Cut(member, []byte("\r\n\r\n"))
	if !ok {
		t.Fatalf("record without a header end: %.200q", member)
	}
	lines := strings.Split(string(head), "\r\n")
	if lines[0] != "WARC/1.1" {
		t.Fatalf("record version line %q, want WARC/1.1", lines[0])
	}
	rec := warcRecord{header: map[string][]string{}}
	for _, l := range lines[1:] {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("bad header line %q", l)
		}
		k = strings.ToLower(strings.TrimSpace(k))
		rec.header[k] = append(rec.header[k], strings.TrimSpace(v))
	}
	n, err := strconv.Atoi(rec.get("Content-Length"))
	if err != nil || n > len(rest) {
		t.Fatalf("Content-Length %q with %d bytes left", rec.get("Content-Length"), len(rest))
	}
	rec.block = rest[:n]
	if tail := rest[n:]; string(tail) != "\r\n\r\n" {
		t.Fatalf("record of %s ends with %q, want CRLF CRLF", rec.get("WARC-Target-URI"), tail)
	}
	return rec
}

// sha1Digest is "sha1:" + base32(SHA-1), computed here independently of the writer.
func sha1Digest(b []byte) string {
	sum := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(sum[:])
}

// httpPayload splits an application/http block into its status line, header fields
// and payload.
func httpPayload(t *testing.T, block []byte) (status int, header http.Header, payload []byte) {
	t.Helper()
	head, payload, ok := bytes.Cut(block, []byte("\r\n\r\n"))
	if !ok {
		t.Fatalf("HTTP block without a header end: %.200q", block)
	}
	lines := strings.Split(string(head), "\r\n")
	f := strings.Fields(lines[0])
	if len(f) < 2 {
		t.Fatalf("status line %q", lines[0])
	}
	status, _ = strconv.Atoi(f[1])
	header = http.Header{}
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, ":")
		header.Add(k, strings.TrimSpace(v))
	}
	return status, header, payload
}

// TestWARCExportOfASandboxCrawl exports a sandbox crawl holding revisits of both
// profiles, same-host redirect chains, a 404, a Chinese site and invalid UTF-8, then
// checks with a reader of its own that every digest is right and every payload is
// byte for byte what the sandbox served, and that warcio.js reads every record.
func TestWARCExportOfASandboxCrawl(t *testing.T) {
	if testing.Short() {
		t.Skip("crawls a sandbox web")
	}
	db, served := crawlFixture(t)
	st, err := store.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var captures []store.Capture
	if err := st.Captures(time.Time{}, func(c store.Capture, bodyErr error) error {
		if bodyErr != nil {
			return bodyErr
		}
		captures = append(captures, c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// A small max size so the export rotates: each file must stand on its own.
	rep, err := export.WARC(st, export.WARCOptions{Dir: dir, MaxSize: 32 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Warnings != 0 || len(rep.Files) < 2 {
		t.Fatalf("report %+v: want no warnings and several files", rep)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.open")); len(left) > 0 {
		t.Fatalf("temporary files left: %v", left)
	}
	var files []string
	var recs []warcRecord
	for _, f := range rep.Files {
		files = append(files, f)
		fileRecs := readWARC(t, f)
		if fileRecs[0].get("WARC-Type") != "warcinfo" {
			t.Errorf("%s starts with a %s record, want warcinfo", f, fileRecs[0].get("WARC-Type"))
		}
		recs = append(recs, fileRecs...)
	}
	if len(recs) != rep.Records {
		t.Fatalf("read %d records, the report says %d", len(recs), rep.Records)
	}

	byID := map[string]warcRecord{}
	for _, r := range recs {
		byID[r.get("WARC-Record-ID")] = r
	}
	kinds := map[string]int{}
	decodedGzip := 0
	for _, r := range recs {
		typ, uri := r.get("WARC-Type"), r.get("WARC-Target-URI")
		kinds[typ]++
		if got := sha1Digest(r.block); r.get("WARC-Block-Digest") != got {
			t.Errorf("%s %s: WARC-Block-Digest %s, computed %s", typ, uri, r.get("WARC-Block-Digest"), got)
		}
		if typ == "warcinfo" {
			continue
		}
		if r.get("WARC-Date") == "" || uri == "" || r.get("WARC-IP-Address") == "" {
			t.Errorf("%s %s: missing WARC-Date, WARC-Target-URI or WARC-IP-Address: %v", typ, uri, r.header)
		}
		if info := r.get("WARC-Warcinfo-ID"); byID[info].get("WARC-Type") != "warcinfo" || byID[info].file != r.file {
			t.Errorf("%s %s: WARC-Warcinfo-ID %s is not its file's warcinfo", typ, uri, info)
		}
		// Request and response (or revisit) name each other.
		peers := r.header["warc-concurrent-to"]
		if len(peers) != 1 {
			t.Errorf("%s %s: %d WARC-Concurrent-To, want 1", typ, uri, len(peers))
			continue
		}
		peer := byID[peers[0]]
		if peer.get("WARC-Target-URI") != uri || !slices.Contains(peer.header["warc-concurrent-to"], r.get("WARC-Record-ID")) {
			t.Errorf("%s %s: concurrent record %s does not point back at it", typ, uri, peers[0])
		}
		switch typ {
		case "request":
			if !bytes.HasPrefix(r.block, []byte("GET ")) || !bytes.Contains(r.block, []byte("\r\nUser-Agent: ")) {
				t.Errorf("request %s: block %.120q is not the request as sent", uri, r.block)
			}
		case "response":
			status, _, payload := httpPayload(t, r.block)
			if got := sha1Digest(payload); r.get("WARC-Payload-Digest") != got {
				t.Errorf("response %s: WARC-Payload-Digest %s, computed %s", uri, r.get("WARC-Payload-Digest"), got)
			}
			if r.get("Crawlconsole-Decoded-Content-Encoding") != "" {
				// The body kept is the decoded one: the record must not claim a coding,
				// and its length must be the decoded length.
				_, h, _ := httpPayload(t, r.block)
				if h.Get("Content-Encoding") != "" || h.Get("Content-Length") != strconv.Itoa(len(payload)) {
					t.Errorf("response %s: decoded body of %d bytes under Content-Encoding %q, Content-Length %q", uri,
						len(payload), h.Get("Content-Encoding"), h.Get("Content-Length"))
				}
				decodedGzip++
				if !servedOnce(gunzipAll(t, served.bodies(uri)), status, payload) {
					t.Errorf("response %s: payload is not the decoded body the server sent", uri)
				}
				continue
			}
			if !servedOnce(served.bodies(uri), status, payload) {
				t.Errorf("response %s (%d, %d bytes): not byte for byte an answer the sandbox served", uri, status, len(payload))
			}
		case "revisit":
			status, _, payload := httpPayload(t, r.block)
			if len(payload) != 0 {
				t.Errorf("revisit %s carries %d payload bytes", uri, len(payload))
			}
			ref := byID[r.get("WARC-Refers-To")]
			switch r.get("WARC-Profile") {
			case "http://netpreserve.org/warc/1.1/revisit/server-not-modified":
				if status != http.StatusNotModified {
					t.Errorf("server-not-modified revisit %s has status %d", uri, status)
				}
			case "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest":
				if ref.get("WARC-Payload-Digest") != r.get("WARC-Payload-Digest") {
					t.Errorf("identical-payload revisit %s: digest %s, its referent's %s", uri, r.get("WARC-Payload-Digest"), ref.get("WARC-Payload-Digest"))
				}
			default:
				t.Errorf("revisit %s: profile %q", uri, r.get("WARC-Profile"))
			}
			if ref.get("WARC-Type") != "response" || ref.get("WARC-Target-URI") != r.get("WARC-Refers-To-Target-URI") ||
				ref.get("WARC-Date") != r.get("WARC-Refers-To-Date") {
				t.Errorf("revisit %s: refers to %q (%s %s), want a response with that URI and date", uri,
					r.get("WARC-Refers-To"), r.get("WARC-Refers-To-Target-URI"), r.get("WARC-Refers-To-Date"))
			}
		}
	}
	if kinds["request"] != len(captures) || kinds["response"]+kinds["revisit"] != len(captures) {
		t.Errorf("record kinds %v for %d captures", kinds, len(captures))
	}
	statuses := map[int]bool{}
	hasHan := false
	for _, c := range captures {
		statuses[c.Status] = true
		hasHan = hasHan || strings.ContainsFunc(string(c.Body), func(r rune) bool { return unicode.Is(unicode.Han, r) })
	}
	for _, want := range []int{200, 302, 304, 404} {
		if !statuses[want] {
			t.Errorf("no %d exchange exported", want)
		}
	}
	if !hasHan {
		t.Error("no Chinese page exported")
	}
	if decodedGzip == 0 {
		t.Error("no response record of the gzip page")
	}
	t.Logf("%d records in %d files: %v", len(recs), len(files), kinds)
	checkWithWarcioJS(t, files, recs)
}

// servedOnce reports whether the sandbox answered with exactly this status and body.
func servedOnce(answers []served, status int, payload []byte) bool {
	for _, a := range answers {
		if a.status == status && bytes.Equal(a.body, payload) {
			return true
		}
	}
	return false
}

// gunzipAll decodes gzip bodies (others pass as they are).
func gunzipAll(t *testing.T, answers []served) []served {
	out := make([]served, len(answers))
	for i, a := range answers {
		out[i] = a
		if zr, err := gzip.NewReader(bytes.NewReader(a.body)); err == nil {
			if b, err := io.ReadAll(zr); err == nil {
				out[i].body = b
			}
		}
	}
	return out
}

// warcioVersion is the pinned version of webrecorder's warcio.js (npm "warcio").
const warcioVersion = "2.4.11"

// warcioCLI finds warcio.js's command line: $WARCIO_JS, or the copy .ci/run installs
// in the user cache, installing it there with npm if needed. It skips the test when
// node is not installed.
func warcioCLI(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: install nodejs and npm (.ci/run does) to check the export with warcio.js")
	}
	if p := os.Getenv("WARCIO_JS"); p != "" {
		return p
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	prefix := filepath.Join(cache, "crawlconsole", "warcio-"+warcioVersion)
	cli := filepath.Join(prefix, "node_modules", "warcio", "dist", "cli.js")
	if _, err := os.Stat(cli); err == nil {
		return cli
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed: install it (.ci/run does) to check the export with warcio.js")
	}
	out, err := exec.Command("npm", "install", "--no-audit", "--no-fund", "--prefix", prefix, "warcio@"+warcioVersion).CombinedOutput()
	if err != nil {
		t.Fatalf("npm install warcio@%s: %v\n%s", warcioVersion, err, out)
	}
	return cli
}

// checkWithWarcioJS runs `warcio index` and `warcio cdx-index` on the files and
// checks that they read every record: same count, types and target URIs, in order.
func checkWithWarcioJS(t *testing.T, files []string, recs []warcRecord) {
	t.Helper()
	cli := warcioCLI(t)
	run := func(args ...string) []map[string]string {
		cmd := exec.Command("node", append([]string{cli}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil || stderr.Len() > 0 {
			t.Fatalf("warcio %s: %v\n%s", args[0], err, stderr.String())
		}
		var rows []map[string]string
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if args[0] == "cdx-index" { // "urlkey timestamp {json}"
				_, js, ok := strings.Cut(line, " {")
				if !ok {
					t.Fatalf("cdx line %q", line)
				}
				line = "{" + js
			}
			var row map[string]any
			if err := json.Unmarshal([]byte(line), &row); err != nil {
				t.Fatalf("warcio %s line %q: %v", args[0], line, err)
			}
			m := map[string]string{}
			for k, v := range row {
				m[k] = fmt.Sprint(v)
			}
			rows = append(rows, m)
		}
		return rows
	}
	// --fields is an array option: it goes after the file names.
	index := run(append(append([]string{"index"}, files...), "--fields", "warc-type,warc-target-uri,warc-payload-digest")...)
	if len(index) != len(recs) {
		t.Fatalf("warcio index read %d records, the export has %d", len(index), len(recs))
	}
	var wantCDX []warcRecord
	for i, r := range recs {
		got := index[i]
		if got["warc-type"] != r.get("WARC-Type") || got["warc-target-uri"] != r.get("WARC-Target-URI") && r.get("WARC-Type") != "warcinfo" {
			t.Errorf("record %d: warcio index read %s %s, the export has %s %s", i, got["warc-type"], got["warc-target-uri"],
				r.get("WARC-Type"), r.get("WARC-Target-URI"))
		}
		if typ := r.get("WARC-Type"); typ == "response" || typ == "revisit" || typ == "conversion" {
			wantCDX = append(wantCDX, r)
		}
	}
	cdx := run(append([]string{"cdx-index"}, files...)...)
	if len(cdx) != len(wantCDX) {
		t.Fatalf("warcio cdx-index listed %d captures, the export has %d responses and revisits", len(cdx), len(wantCDX))
	}
	for i, r := range wantCDX {
		if r.get("WARC-Type") == "conversion" { // a rendered DOM: no HTTP message, no status
			if cdx[i]["url"] != r.get("WARC-Target-URI") {
				t.Errorf("cdx line %d: %s, the export has a conversion of %s", i, cdx[i]["url"], r.get("WARC-Target-URI"))
			}
			continue
		}
		status, _, _ := httpPayload(t, r.block)
		if cdx[i]["url"] != r.get("WARC-Target-URI") || cdx[i]["status"] != strconv.Itoa(status) {
			t.Errorf("cdx line %d: %s %s, the export has %s %d", i, cdx[i]["url"], cdx[i]["status"], r.get("WARC-Target-URI"), status)
		}
		if d := strings.TrimPrefix(r.get("WARC-Payload-Digest"), "sha1:"); d != "" && cdx[i]["digest"] != d {
			t.Errorf("cdx line %d (%s): digest %s, the export has %s", i, r.get("WARC-Target-URI"), cdx[i]["digest"], d)
		}
	}
	if t.Failed() {
		return
	}
	t.Logf("warcio.js %s: index read %d records, cdx-index %d captures", warcioVersion, len(index), len(cdx))
}
