package cli

import (
	"bufio"
	"context"
	"database/sql"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/enginetest"
	"github.com/crawlconsole/crawlconsole/ui/internal/uitest"
)

// TestDemoPagesAreDatedNow: the demo's web publishes as it runs, so the pages it
// stores are recent by their own dates (/metrics' age bands; the Sites pane's
// publish-to-store delay), and no page is dated after its fetch: the web's clock
// runs --scale× ahead of real time, and its dates written in web time lie in the
// future, which the delay drops and the age bands count as under an hour old.
func TestDemoPagesAreDatedNow(t *testing.T) {
	t.Parallel()
	addr := uitest.FreeAddr(t)
	db := filepath.Join(t.TempDir(), "demo.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	started := time.Now()
	go func() {
		done <- runDemo(ctx, []string{"--headless", "--hosts", "8", "--lanes", "4", "--metrics", addr, "--db", db}, io.Discard, io.Discard)
	}()
	bands := map[string]float64{}
	deadline := time.Now().Add(enginetest.Patience)
	// Until 20 dated pages, and long enough that an article served now is not
	// taken for one served at the start.
	for total := 0.0; total < 20 || time.Since(started) < 6*time.Second; {
		if time.Now().After(deadline) {
			t.Fatalf("after %v the demo had dated %v pages", enginetest.Patience, bands)
		}
		select {
		case code := <-done:
			t.Fatalf("the demo ended (exit %d) with pages by age %v", code, bands)
		case <-time.After(300 * time.Millisecond):
		}
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			continue
		}
		total = 0
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			l := sc.Text()
			if !strings.HasPrefix(l, `crawlconsole_pages_stored_by_age_total{age="`) {
				continue
			}
			band, rest, _ := strings.Cut(strings.TrimPrefix(l, `crawlconsole_pages_stored_by_age_total{age="`), `"} `)
			n, _ := strconv.ParseFloat(rest, 64)
			bands[band] = n
			if band != "undated" {
				total += n
			}
		}
		resp.Body.Close()
	}
	cancel()
	<-done
	if bands["gt_30d"] > 0 || bands["7d_30d"] > 0 {
		t.Errorf("demo pages dated weeks or years before the crawl: %v", bands)
	}
	h, err := sql.Open("sqlite3", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var dated, future int
	var ahead sql.NullFloat64
	if err := h.QueryRow(`select count(*), coalesce(sum(published_at > fetched_at), 0), max(published_at - fetched_at) / 1e9
		from pages where published_at > 0`).Scan(&dated, &future, &ahead); err != nil {
		t.Fatal(err)
	}
	if dated < 20 {
		t.Fatalf("the store holds %d dated pages, /metrics counted %v", dated, bands)
	}
	if future > 0 {
		t.Errorf("%d of %d dated pages are dated after their fetch, up to %.1f s", future, dated, ahead.Float64)
	}
	// An article is dated when it was published (the web's start), not when it was
	// served: the Sites pane's publish-to-store delay read 0-1 s on every site, the
	// header's serving time taken for each page's publication.
	var articles, atStart int
	if err := h.QueryRow(`select count(*), coalesce(sum(abs(published_at - ?1) < 2e9), 0)
		from pages where published_at > 0 and url like '%.html' and fetched_at > ?1 + 4e9`, started.UnixNano()).Scan(&articles, &atStart); err != nil {
		t.Fatal(err)
	}
	if articles < 3 || atStart < articles*9/10 {
		t.Errorf("%d of %d dated articles fetched 4 s or more into the demo are dated at its start; want nearly all (their publication, not their serving time)", atStart, articles)
	}
}
