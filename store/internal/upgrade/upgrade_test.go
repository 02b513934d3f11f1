package upgrade

import "testing"

func TestGroupDigits(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 98765: "98,765", 1234567: "1,234,567", -1500: "-1,500"} {
		if got := GroupDigits(n); got != want {
			t.Errorf("GroupDigits(%d) = %q, want %q", n, got, want)
		}
	}
}
