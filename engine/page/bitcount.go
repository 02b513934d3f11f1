package page

import "github.com/crawlconsole/crawlconsole/engine/page/internal/bitvote"

// unitOnes counts, for each bit, the features that have it set, when every weight
// is 1 (as in Sign): bitvote.Count of the features' sums.
func unitOnes(store []feature, ones *[64]int) {
	var t bitvote.ByteLanes
	for len(store) > 0 {
		n := min(len(store), bitvote.NibbleWords)
		var q bitvote.Nibbles
		for i := range store[:n] {
			q = q.Add(store[i].sum)
		}
		t.Add(q, ones)
		store = store[n:]
	}
	t.Flush(ones)
}
