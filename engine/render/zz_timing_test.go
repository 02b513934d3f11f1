package render

import (
	"testing"
	"time"
)

func TestZZTiming(t *testing.T) {
	ts := newTestServer(t)
	for _, settle := range []time.Duration{150 * time.Millisecond, 0} {
		p := testPool(t, Config{Timeout: 8 * time.Second, Settle: settle})
		p.Render(t.Context(), ts.job("/", spaShell, 200))
		var tot time.Duration
		for i := 0; i < 10; i++ {
			st := time.Now()
			out, err := p.Render(t.Context(), ts.job("/", spaShell, 200))
			if err != nil {
				t.Fatal(err)
			}
			tot += time.Since(st)
			_ = out
		}
		t.Logf("settle %v: %v per render", settle, tot/10)
	}
}
