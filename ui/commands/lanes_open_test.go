package commands

import "testing"

// A lane command naming a lane that is not open lists the open ones: their numbers
// are not 1..N once lanes have closed (a crawl had 10, 12, 13, … and "no lane 1
// (lanes shown: 7)" left the operator guessing).
func TestOpenLanesNamesTheNumbers(t *testing.T) {
	for _, c := range []struct {
		ids  []int
		want string
	}{
		{[]int{16, 10, 12}, "3 lanes open: 10, 12, 16"},
		{[]int{7}, "1 lane open: 7"},
		{[]int{30, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, "11 lanes open: 2, 3, 4, 5, 6, 7, 8, 9, …, 30"},
	} {
		if got := openLanes(c.ids); got != c.want {
			t.Errorf("openLanes(%v) = %q, want %q", c.ids, got, c.want)
		}
	}
}
