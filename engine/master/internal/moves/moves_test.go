package moves

import "testing"

// The line names the moves to the worker first, then the others by receiver, and
// sums those past the fourth.
func TestSaid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		c    Count
		want string
	}{
		{"none", Count{}, "no site or keyword shard moves"},
		{"one to it", Count{{"w1", "w3"}: 1}, "1 site or keyword shard moves to it"},
		{"to it and between others", Count{{"w1", "w3"}: 2, {"", "w3"}: 1, {"w2", "w4"}: 1},
			"3 sites or keyword shards move to it, 1 from w2 to w4"},
		{"from it alone", Count{{"w3", "w1"}: 2, {"", "w2"}: 1}, "2 sites or keyword shards move from it to w1, 1 to w2"},
		{"many receivers", Count{{"w9", "a"}: 1, {"w9", "b"}: 1, {"w9", "c"}: 1, {"w9", "d"}: 1, {"w9", "e"}: 2, {"w9", "f"}: 1},
			"1 site or keyword shard moves from w9 to a, 1 from w9 to b, 1 from w9 to c, 1 from w9 to d, 3 more to 2 other workers"},
	} {
		if got := tc.c.Said("w3"); got != tc.want {
			t.Errorf("%s: %q; want %q", tc.name, got, tc.want)
		}
	}
}
