package cluster

import (
	"errors"
	"sync"
	"testing"
)

func TestRejectsCounts(t *testing.T) {
	var r Rejects // the zero value is ready
	if got := r.Snapshot(); got[ReasonOversize] != 0 || got[ReasonMalformed] != 0 || got[ReasonInvalid] != 0 || len(got) != 3 {
		t.Fatalf("zero Rejects snapshot = %v", got)
	}
	inputs := [][]byte{
		make([]byte, 2048),  // oversize
		[]byte(`{"url":`),   // malformed
		[]byte(`{"url":1}`), // malformed (wrong type)
		[]byte(`{}`),        // invalid
	}
	var wg sync.WaitGroup
	const workers, rounds = 8, 250
	for range workers {
		wg.Go(func() {
			for range rounds {
				for _, in := range inputs {
					var m testResult
					if err := Decode(in, &m, 1024); err != nil {
						r.Add(Reason(err))
					}
				}
			}
		})
	}
	wg.Go(func() { r.Add("stale") })
	wg.Wait()
	want := map[string]int64{
		ReasonOversize:  workers * rounds,
		ReasonMalformed: 2 * workers * rounds,
		ReasonInvalid:   workers * rounds,
		"stale":         1,
	}
	got := r.Snapshot()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %d; want %d", k, got[k], v)
		}
	}
	got[ReasonInvalid] = -1
	if r.Snapshot()[ReasonInvalid] != workers*rounds {
		t.Error("Snapshot shares its map with the counter")
	}
	if Reason(errors.New("other")) != ReasonMalformed {
		t.Error("an unknown error should count as malformed")
	}
}
