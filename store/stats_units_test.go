package store

import (
	"testing"
	"time"
)

// stats speaks the console's units: the same byte count reads the same in both.
func TestStatsBytesUseTheConsolesUnits(t *testing.T) {
	for n, want := range map[int64]string{999: "999 B", 16_880_000: "16.9 MB", 4_300_000_000: "4.3 GB", 1500: "1.5 kB"} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// A URL only waiting for its site's robots.txt is no error: neither stats nor
// stats --hosts lists it among the error kinds (it shows as deferred).
func TestRobotsWaitIsNoErrorKind(t *testing.T) {
	s, _ := openTemp(t, Options{})
	u := testURL("a.test", 1)
	s.AddURLs([]URL{u}, nil)
	s.DeferAs(u.URL, time.Now().Add(time.Hour), "robots_unreachable")
	mustFlush(t, s)
	st, err := s.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.ErrorKinds) > 0 {
		t.Errorf("a URL waiting for its robots.txt is listed among the errors: %+v", st.ErrorKinds)
	}
	if c, _ := s.Counts(); c.Deferred != 1 {
		t.Errorf("deferred %d, want 1", c.Deferred)
	}
	hosts, err := s.HostReport()
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hosts {
		if len(h.Kinds) > 0 || h.Failed > 0 || h.Waiting != 1 {
			t.Errorf("host %s: kinds %+v, failed %d, waiting %d; want no kinds, 0 failed, 1 waiting", h.Host, h.Kinds, h.Failed, h.Waiting)
		}
	}
}
