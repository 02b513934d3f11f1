package store

import (
	"bytes"
	"compress/zlib"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/store/internal/bodycodec"
	"github.com/klauspost/compress/zstd"
)

func TestQueuedOrderPagingAndDeferred(t *testing.T) {
	s, _ := openTemp(t, Options{})
	var urls []URL
	for i := 0; i < 10; i++ {
		urls = append(urls, testURL("q.test", i))
	}
	var log linkLog
	s.AddURLs(urls, log.record)
	mustFlush(t, s)
	seq := map[string]int64{}
	for _, c := range log.calls {
		seq[c.url] = c.seq
	}
	s.SetState(urls[1].URL, InProgress, 1, "")
	s.SetState(urls[2].URL, Failed, 1, "dns")
	s.SavePage(testPage(urls[3].URL, 100), nil, nil)
	s.Defer(urls[4].URL, time.Now().Add(-time.Minute)) // due again
	s.Defer(urls[5].URL, time.Now().Add(time.Hour))    // still set aside
	mustFlush(t, s)

	wantAll := []int{0, 4, 6, 7, 8, 9}
	tests := []struct {
		name  string
		after int64
		limit int
		want  []int // indexes into urls
	}{
		{"first page", 0, 3, wantAll[:3]},
		{"next page after last seq", seq[urls[6].URL], 3, wantAll[3:]},
		{"everything", 0, 100, wantAll},
		{"past the end", seq[urls[9].URL], 10, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Queued(time.Now(), tc.after, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			var gotURLs, wantURLs []string
			for _, u := range got {
				gotURLs = append(gotURLs, u.URL)
			}
			for _, i := range tc.want {
				wantURLs = append(wantURLs, urls[i].URL)
			}
			if !slices.Equal(gotURLs, wantURLs) {
				t.Errorf("Queued(%d, %d) = %v, want %v", tc.after, tc.limit, gotURLs, wantURLs)
			}
		})
	}
	due, err := s.DueDeferred(time.Now(), 10)
	if err != nil || len(due) != 1 || due[0].URL != urls[4].URL || due[0].State != Deferred {
		t.Errorf("DueDeferred = %+v, %v; want only %s", due, err, urls[4].URL)
	}
}

func TestReadsOfMissingThings(t *testing.T) {
	s, _ := openTemp(t, Options{})
	if _, err := s.Page("http://none.test/"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Page: %v, want ErrNotFound", err)
	}
	if _, err := s.URLState("http://none.test/"); !errors.Is(err, ErrNotFound) {
		t.Errorf("URLState: %v, want ErrNotFound", err)
	}
	if urls, err := s.PageURLs(); err != nil || len(urls) != 0 {
		t.Errorf("PageURLs on an empty store = %v, %v", urls, err)
	}
	if ev, err := s.RecentEvents(5); err != nil || len(ev) != 0 {
		t.Errorf("RecentEvents on an empty store = %v, %v", ev, err)
	}
	if ok, err := s.IntegrityCheck(); err != nil || ok != "ok" {
		t.Errorf("IntegrityCheck = %q, %v", ok, err)
	}
}

func TestBodiesRoundTripWhateverTheyHold(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	tests := []struct {
		name string
		body []byte
	}{
		{"html", testPage("http://x/", 8000).Body},
		{"small html", testPage("http://x/", 3000).Body},        // literals kept raw (smallBody)
		{"html above 1 MiB", testPage("http://x/", 3<<20).Body}, // not the shared (de)compressor
		{"incompressible binary", random},
		{"empty", nil},
		{"one byte", []byte{0}},
	}
	s, _ := openTemp(t, Options{})
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := testPage("http://body.test/"+strings.ReplaceAll(tc.name, " ", "-"), 0)
			p.Body = slices.Clone(tc.body)
			s.SavePage(p, nil, nil)
			clear(p.Body) // the caller reusing its buffer must not change what is stored
			mustFlush(t, s)
			got, err := s.Page(p.URL)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Body, tc.body) {
				t.Errorf("case %d: body of %d bytes came back as %d bytes, different", i, len(tc.body), len(got.Body))
			}
		})
	}
	urls, _ := s.PageURLs()
	if !slices.IsSorted(urls) || len(urls) != len(tests) {
		t.Errorf("PageURLs = %v; want %d sorted URLs", urls, len(tests))
	}
}

// Databases written before zstd (codec 2) hold zlib bodies (codec 1), and those
// written before S2 (codec 3) hold small bodies as zstd frames: they must still read,
// and a damaged body of any codec must be an error, never wrong bytes.
func TestOlderBodiesStillReadAndDamageIsAnError(t *testing.T) {
	s, path := openTemp(t, Options{})
	old, small, big := testPage("http://old.test/", 6000), testPage("http://small.test/", 6000), testPage("http://big.test/", 20000)
	oldSmall := testPage("http://old-small.test/", 5000)
	for _, p := range []Page{old, small, big, oldSmall} {
		s.SavePage(p, nil, nil)
	}
	mustFlush(t, s)
	s.Close()

	var zbuf bytes.Buffer
	zw := zlib.NewWriter(&zbuf)
	zw.Write(old.Body)
	zw.Close()
	// A small body as the schema before S2 stored it: a zstd frame, raw literals.
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(true),
		zstd.WithNoEntropyCompression(true))
	if err != nil {
		t.Fatal(err)
	}
	zs := enc.EncodeAll(oldSmall.Body, nil)
	db := rawDB(t, path)
	for _, x := range []struct {
		url   string
		codec int
		body  []byte
	}{{old.URL, bodycodec.Zlib, zbuf.Bytes()}, {oldSmall.URL, bodycodec.Zstd, zs}} {
		if _, err := db.Exec(`UPDATE pages SET body_codec = ?, body = ?, stored_bytes = ? WHERE url = ?`,
			x.codec, x.body, len(x.body), x.url); err != nil {
			t.Fatal(err)
		}
	}
	for u, want := range map[string]int64{small.URL: bodycodec.S2, big.URL: bodycodec.Zstd} {
		if codec := queryInt(t, db, `SELECT body_codec FROM pages WHERE url = ?`, u); codec != want {
			t.Errorf("%s: HTML body stored with codec %d, want %d", u, codec, want)
		}
	}
	db.Close()

	s = reopen(t, path)
	pages := []Page{old, small, big, oldSmall}
	for _, p := range pages {
		if got, err := s.Page(p.URL); err != nil || !bytes.Equal(got.Body, p.Body) {
			t.Errorf("%s: %d bytes, %v; want the %d bytes written", p.URL, len(got.Body), err, len(p.Body))
		}
	}

	// Flip one byte in the middle of each compressed body, then the first byte (an S2
	// body's checksum, a zstd frame's magic number).
	for _, at := range []func(n int) int{func(n int) int { return n / 2 }, func(int) int { return 0 }} {
		db = rawDB(t, path)
		for _, p := range pages {
			var b []byte
			if err := db.QueryRow(`SELECT body FROM pages WHERE url = ?`, p.URL).Scan(&b); err != nil {
				t.Fatal(err)
			}
			b[at(len(b))] ^= 0x55
			if _, err := db.Exec(`UPDATE pages SET body = ? WHERE url = ?`, b, p.URL); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		for _, p := range pages {
			if got, err := s.Page(p.URL); err == nil {
				t.Errorf("%s: damaged body read without error (%d bytes, equal: %v)", p.URL, len(got.Body),
					bytes.Equal(got.Body, p.Body))
			}
		}
	}
}

func TestStatsSummarisesTheCrawl(t *testing.T) {
	s, path := openTemp(t, Options{})
	for i := 0; i < 6; i++ {
		s.AddURLs([]URL{testURL("big.test", i)}, nil)
	}
	s.AddURLs([]URL{testURL("small.test", 1)}, nil)
	s.SetState(testURL("big.test", 0).URL, Failed, 1, "timeout")
	s.SetState(testURL("big.test", 1).URL, Failed, 1, "timeout")
	s.SetState(testURL("small.test", 1).URL, Failed, 2, "dns")
	t0 := time.Unix(1_700_000_000, 0)
	for i, at := range []time.Time{t0.Add(time.Minute), t0, t0.Add(time.Hour)} {
		p := testPage(testURL("big.test", 2+i).URL, 3000)
		p.FetchedAt = at
		s.SavePage(p, nil, nil)
	}
	s.LaneOpened(1, "bind:127.0.0.2", t0)
	s.LaneRetired(1, t0.Add(10*time.Second), 7)
	s.LaneOpened(1, "bind:127.0.0.3", t0.Add(20*time.Second))
	s.LaneOpened(2, "bind:127.0.0.3", t0.Add(20*time.Second))
	s.LaneRetired(2, t0.Add(50*time.Second), 3)
	s.AddEvent(t0, 1, 1, "big.test", "hello")
	mustFlush(t, s)

	st, err := s.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.Path != path || st.SchemaVersion != SchemaVersion() || st.FileBytes <= 0 {
		t.Errorf("header: %+v", st)
	}
	if st.Counts.URLs != 7 || st.Counts.Failed != 3 || st.Counts.Processed != 3 || st.Counts.Unprocessed != 1 || st.Counts.Pages != 3 {
		t.Errorf("counts: %+v", st.Counts)
	}
	if want := []KindCount{{"timeout", 2}, {"dns", 1}}; !slices.Equal(st.ErrorKinds, want) {
		t.Errorf("error kinds = %v, want %v", st.ErrorKinds, want)
	}
	if want := []HostCount{{"big.test", 6, 3}, {"small.test", 1, 0}}; !slices.Equal(st.TopHosts, want) {
		t.Errorf("top hosts = %v, want %v", st.TopHosts, want)
	}
	if st.FirstFetch == nil || !st.FirstFetch.Equal(t0) || !st.LastFetch.Equal(t0.Add(time.Hour)) {
		t.Errorf("fetch span %v..%v, want %v..%v", st.FirstFetch, st.LastFetch, t0, t0.Add(time.Hour))
	}
	l := st.Lanes
	if l.Opened != 3 || l.Open != 1 || l.Pages != 10 || l.MeanLifetime < 19.99 || l.MeanLifetime > 20.01 {
		t.Errorf("lanes = %+v; want 3 opened, 1 open, 10 pages, mean life 20s", l)
	}
	if want := []EgressLanes{{"bind:127.0.0.3", 2, 3}, {"bind:127.0.0.2", 1, 7}}; !slices.Equal(l.ByEgress, want) {
		t.Errorf("by egress = %v, want %v", l.ByEgress, want)
	}

	// The JSON field names are a contract of `crawlconsole stats --json`.
	raw, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(raw, &m)
	for _, k := range []string{"path", "schema_version", "file_bytes", "counts", "compression_ratio",
		"error_kinds", "top_hosts", "first_fetch", "last_fetch", "lanes", "events"} {
		if _, ok := m[k]; !ok {
			t.Errorf("stats JSON lacks %q: %s", k, raw)
		}
	}
	for _, k := range []string{"unprocessed", "in_progress", "processed", "failed", "deferred", "urls", "pages",
		"bytes_stored", "bytes_compressed"} {
		if _, ok := m["counts"].(map[string]any)[k]; !ok {
			t.Errorf("stats JSON counts lacks %q", k)
		}
	}

	var text bytes.Buffer
	if err := st.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"processed", "timeout", "big.test", "bind:127.0.0.3", "2023-11-14T22:13:20Z"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text stats lack %q:\n%s", want, text.String())
		}
	}
}

func TestStatsOfAnEmptyStore(t *testing.T) {
	s, _ := openTemp(t, Options{})
	st, err := s.Stats()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(st)
	if !strings.Contains(string(raw), `"first_fetch":null`) || !strings.Contains(string(raw), `"error_kinds":[]`) {
		t.Errorf("empty stats JSON = %s; want null fetch times and empty lists", raw)
	}
	var text bytes.Buffer
	if err := st.WriteText(&text); err != nil || !strings.Contains(text.String(), "pages") {
		t.Errorf("empty stats text = %q, %v", text.String(), err)
	}
}
