package main

import (
	"fmt"
	rtmetrics "runtime/metrics"
)

// heapCount is this process's allocations and GC cycles so far (runtime/metrics),
// or a run's, as the difference of two. Unlike the CPU time they hardly move with
// the machine's load: a change that allocates less shows here when the CPU
// figure's swing hides it.
type heapCount struct {
	bytes, objects, cycles uint64
}

var heapMetrics = [...]string{"/gc/heap/allocs:bytes", "/gc/heap/allocs:objects", "/gc/cycles/total:gc-cycles"}

func readHeapCount() heapCount {
	var s [len(heapMetrics)]rtmetrics.Sample
	for i, name := range heapMetrics {
		s[i].Name = name
	}
	rtmetrics.Read(s[:])
	var v [len(heapMetrics)]uint64
	for i := range s {
		if s[i].Value.Kind() == rtmetrics.KindUint64 {
			v[i] = s[i].Value.Uint64()
		}
	}
	return heapCount{bytes: v[0], objects: v[1], cycles: v[2]}
}

func (h heapCount) since(h0 heapCount) heapCount {
	return heapCount{bytes: h.bytes - h0.bytes, objects: h.objects - h0.objects, cycles: h.cycles - h0.cycles}
}

// note is a run's heap account: KB and objects allocated a page, and the run's GC
// cycles. (The runtime's estimate of the GC's CPU is left out: it counts its
// workers' wall time, which a loaded machine stretches several-fold.)
func (h heapCount) note(pages int) string {
	if pages <= 0 {
		return ""
	}
	p := float64(pages)
	return fmt.Sprintf("heap %.1f KB %.0f objects a page, %d GCs", float64(h.bytes)/1024/p, float64(h.objects)/p, h.cycles)
}
