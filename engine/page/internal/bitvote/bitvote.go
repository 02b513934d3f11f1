// Package bitvote counts SimHash votes.
//
// The votes count, for each of the 64 bits, how many features have it set:
// a few hundred features a page for the SimHash and as many for the story. Counting
// set bits one by one, or an 8-lane accumulator walked in a loop, costs about a
// hundred instructions a feature; here the counts are kept in lanes of registers.
// Four accumulators of sixteen 4-bit lanes take bits j, j+4, j+8, ... of each word
// (a dozen operations a word); every 15 words, before a 4-bit lane can overflow,
// they are spread into eight accumulators of 8-bit lanes, and those, every 17
// spreads (255 words), into the counts.
package bitvote

// nibbleMask picks bit 0 of each 4-bit lane.
const nibbleMask = 0x1111111111111111

// Nibbles are four accumulators of sixteen 4-bit lanes: lane m of a counts bit 4m,
// of b bit 4m+1, of c bit 4m+2, of d bit 4m+3. A struct of four words stays in
// registers.
type Nibbles struct{ a, b, c, d uint64 }

// Add counts the set bits of f.
func (q Nibbles) Add(f uint64) Nibbles {
	return Nibbles{q.a + f&nibbleMask, q.b + f>>1&nibbleMask, q.c + f>>2&nibbleMask, q.d + f>>3&nibbleMask}
}

// NibbleWords is how many words the 4-bit lanes hold.
const NibbleWords = 15

// ByteLanes are eight accumulators of eight 8-bit lanes: lane k of acc[j] counts bit
// 8k+j.
type ByteLanes struct {
	acc    [8]uint64
	spread int // nibble groups added since the counts were last updated
}

// Add spreads a group of at most NibbleWords words into the byte lanes, and the
// byte lanes into ones before they can overflow.
func (t *ByteLanes) Add(q Nibbles, ones *[64]int) {
	const low = 0x0F0F0F0F0F0F0F0F
	t.acc[0] += q.a & low
	t.acc[4] += q.a >> 4 & low
	t.acc[1] += q.b & low
	t.acc[5] += q.b >> 4 & low
	t.acc[2] += q.c & low
	t.acc[6] += q.c >> 4 & low
	t.acc[3] += q.d & low
	t.acc[7] += q.d >> 4 & low
	if t.spread++; t.spread == 255/NibbleWords {
		t.Flush(ones)
	}
}

// Flush adds the byte lanes to ones and empties them.
func (t *ByteLanes) Flush(ones *[64]int) {
	for j, a := range t.acc {
		if a == 0 {
			continue
		}
		for k := 0; k < 8; k++ {
			ones[k*8+j] += int(a >> (8 * k) & 0xFF)
		}
	}
	t.acc, t.spread = [8]uint64{}, 0
}

// Count adds to ones[b], for each bit b, how many of fs have it set.
func Count(fs []uint64, ones *[64]int) {
	var t ByteLanes
	for len(fs) > 0 {
		n := min(len(fs), NibbleWords)
		var q Nibbles
		for _, f := range fs[:n] {
			q = q.Add(f)
		}
		t.Add(q, ones)
		fs = fs[n:]
	}
	t.Flush(ones)
}
