package frontier

import (
	"encoding/binary"
	"testing"

	"github.com/bits-and-blooms/bloom/v3"
)

func (d *Dedupe) checkBatchScratch(hs []uint64, out []Verdict) {
	const chunk = 32
	var locs [chunk][]uint64
	var keys [chunk][8]byte
	words := d.seen.BitSet().Words()
	bs := d.seen.BitSet()
	m := uint64(d.seen.Cap())
	k := d.seen.K()
	d.mu.Lock()
	defer d.mu.Unlock()
	for start := 0; start < len(hs); start += chunk {
		end := min(start+chunk, len(hs))
		var sink uint64
		for j := start; j < end; j++ {
			binary.LittleEndian.PutUint64(keys[j-start][:], hs[j])
			l := bloom.Locations(keys[j-start][:], k)
			for x := range l {
				l[x] %= m
				sink |= words[l[x]>>6]
			}
			locs[j-start] = l
		}
		_ = sink
		for j := start; j < end; j++ {
			h := hs[j]
			d.checks++
			before := d.recent.Len()
			if evicted := d.recent.Add(h, struct{}{}); !evicted && d.recent.Len() == before {
				d.recents++
				out[j] = Recent
				continue
			}
			present := true
			for _, l := range locs[j-start] {
				if !bs.Test(uint(l)) {
					present = false
				}
				bs.Set(uint(l))
			}
			if present {
				d.maybes++
				out[j] = Maybe
			} else {
				d.news++
				d.inserted++
				out[j] = New
			}
		}
	}
}

func BenchmarkScratchSingle(b *testing.B) {
	d := NewDedupe(10_000_000, 0.01, 16384)
	for i := 0; i < b.N; i++ {
		d.CheckHash(uint64(i) * 0x9e3779b97f4a7c15)
	}
}

func BenchmarkScratchBatch(b *testing.B) {
	d := NewDedupe(10_000_000, 0.01, 16384)
	hs := make([]uint64, 128)
	out := make([]Verdict, 128)
	for i := 0; i < b.N; i += 128 {
		for j := range hs {
			hs[j] = uint64(i+j) * 0x9e3779b97f4a7c15
		}
		d.checkBatchScratch(hs, out)
	}
}
