package cli

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/ui/internal/uitest"
)

// TestDemoPagesAreDatedNow: the demo's web publishes as it runs, so the pages it
// stores are recent by their own dates (/metrics' age bands; the Sites pane's
// publish-to-store delay). From the sandbox's fixed epoch every page was dated
// years before the crawl: all of them counted gt_30d, the delay 698 days.
func TestDemoPagesAreDatedNow(t *testing.T) {
	t.Parallel()
	addr := uitest.FreeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- runDemo(ctx, []string{"--headless", "--hosts", "8", "--lanes", "4", "--metrics", addr}, io.Discard, io.Discard)
	}()
	bands := map[string]float64{}
	deadline := time.Now().Add(90 * time.Second)
	for total := 0.0; total < 20; {
		if time.Now().After(deadline) {
			t.Fatalf("after 90 s the demo had dated %v pages", bands)
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
}
