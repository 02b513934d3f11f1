package engine

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/export"
	"github.com/crawlconsole/crawlconsole/store"
)

// An export taken while a round is still open (rounds.every an hour) has the
// round's results so far: each news page's keywords in `results`, stored as they
// were collected; the round's end stamps them.
func TestExportMidRoundHasTheOpenRoundsResults(t *testing.T) {
	t.Parallel()
	w := newTopicWeb(t)
	o := topicOptions(t, w)
	o.Rounds.Every = time.Hour
	e := startEngine(t, o)
	waitDone(t, e, 30*time.Second)
	if err := e.st.Flush(); err != nil {
		t.Fatal(err)
	}
	ro, err := store.OpenReadOnly(o.DB)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_, err = export.JSONL(ro, &out, export.JSONLOptions{})
	ro.Close()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var l export.PageLine
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		if path, ok := strings.CutPrefix(l.URL, "http://"+w.news); ok && len(l.Results) > 0 {
			got = append(got, path+" "+strings.Join(l.Results, ","))
		}
	}
	sort.Strings(got)
	want := "/a/1 harbor:flood|/a/2 harbor:台风|/a/4 harbor:flood,harbor:台风"
	if strings.Join(got, "|") != want {
		t.Errorf("news results in an export of the open round: %q, want %q", strings.Join(got, "|"), want)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	rs, _ := readResults(t, o.DB)
	for _, r := range rs {
		if r.Round.IsZero() {
			t.Errorf("result %s %s not stamped with its round at the stop", r.URL, r.Keyword)
		}
	}
}
