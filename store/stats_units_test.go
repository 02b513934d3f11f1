package store

import "testing"

// stats speaks the console's units: the same byte count reads the same in both.
func TestStatsBytesUseTheConsolesUnits(t *testing.T) {
	for n, want := range map[int64]string{999: "999 B", 16_880_000: "16.9 MB", 4_300_000_000: "4.3 GB", 1500: "1.5 kB"} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
