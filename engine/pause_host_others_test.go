package engine

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPausingAHostLetsTheOthersGoOn: on one egress, the operator pauses one host
// mid-crawl; the other hosts go on being fetched while it is paused, and once
// resumed it is fetched again. The mini web links every page to the same page
// on the next host, so the hosts' tasks are adjacent by their parent page and a
// lane may hold several hosts at once.
func TestPausingAHostLetsTheOthersGoOn(t *testing.T) {
	t.Parallel()
	w := &miniWeb{pages: 100, inHost: map[string]int{}, delay: time.Millisecond}
	var mu sync.Mutex
	got := map[string]int{} // pages requested, by "ip:port"
	count := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/p/") {
			mu.Lock()
			got[r.Host]++
			mu.Unlock()
		}
		w.ServeHTTP(rw, r)
	})
	for i := 0; i < 3; i++ {
		w.hosts = append(w.hosts, serveOn(t, fmt.Sprintf("127.0.0.%d", 11+i), count))
	}
	counts := func() []int {
		mu.Lock()
		defer mu.Unlock()
		out := make([]int, len(w.hosts))
		for i, h := range w.hosts {
			out[i] = got[h]
		}
		return out
	}
	o := testOptions(t, w)
	e := startEngine(t, o)
	waitFor(t, "every host fetched", func() bool {
		c := counts()
		return c[0] >= 5 && c[1] >= 1 && c[2] >= 1
	})
	paused := strings.Split(w.hosts[0], ":")[0]
	if err := e.PauseHost(paused, true); err != nil {
		t.Fatal(err)
	}
	at := counts()
	// The others must go on: a stall shows as this wait never ending.
	const more = 20
	deadline := time.Now().Add(patience)
	for c := counts(); c[1] < at[1]+more || c[2] < at[2]+more; c = counts() {
		if time.Now().After(deadline) {
			t.Fatalf("host %s paused at %v pages per host; %v after %v: the other hosts stalled\n%s",
				paused, at, c, patience, stuckState(e))
		}
		time.Sleep(10 * time.Millisecond)
	}
	held := counts()[0]
	if err := e.PauseHost(paused, false); err != nil {
		t.Fatal(err)
	}
	waitFor(t, paused+" fetched again once resumed", func() bool { return counts()[0] > held })
	waitDone(t, e, 3*time.Minute)
}
