package revisit

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
)

// policyStateVersion tags the encoding of MarshalPolicyState.
const policyStateVersion = 1

// MarshalPolicyState encodes the per-page state a Page keeps for its policy beyond
// the seed's five parameters and the columns a store keeps apart (First, Fetches,
// Distance, Freq, Price): the visit history, the rate estimate and the probe count.
// A page with none of them encodes to nil. The encoding is compact (a few bytes per
// visit), since a store holds it for every page.
func MarshalPolicyState(p *Page) []byte {
	if len(p.History) == 0 && p.Rate == 0 && p.Probes == 0 {
		return nil
	}
	b := make([]byte, 0, 1+8+2*binary.MaxVarintLen64+len(p.History)*6)
	b = append(b, policyStateVersion)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(p.Rate))
	b = binary.AppendUvarint(b, uint64(max(p.Probes, 0)))
	b = binary.AppendUvarint(b, uint64(len(p.History)))
	for _, v := range p.History {
		d := uint64(max(v.Interval, 0))
		d = min(d, math.MaxUint64>>1)
		w := d << 1
		if v.Changed {
			w |= 1
		}
		b = binary.AppendUvarint(b, w)
	}
	return b
}

// UnmarshalPolicyState sets p's History, Rate and Probes from b, as encoded by
// MarshalPolicyState (nil or empty b clears them).
func UnmarshalPolicyState(p *Page, b []byte) error {
	p.History, p.Rate, p.Probes = nil, 0, 0
	if len(b) == 0 {
		return nil
	}
	if b[0] != policyStateVersion {
		return fmt.Errorf("revisit: policy state version %d, this build reads %d", b[0], policyStateVersion)
	}
	b = b[1:]
	if len(b) < 8 {
		return errTruncated
	}
	rate := math.Float64frombits(binary.LittleEndian.Uint64(b))
	b = b[8:]
	probes, n := binary.Uvarint(b)
	if n <= 0 {
		return errTruncated
	}
	b = b[n:]
	count, n := binary.Uvarint(b)
	if n <= 0 || count > uint64(len(b)) { // every visit takes at least one byte
		return errTruncated
	}
	b = b[n:]
	history := make([]Visit, 0, count)
	for range count {
		w, n := binary.Uvarint(b)
		if n <= 0 {
			return errTruncated
		}
		b = b[n:]
		history = append(history, Visit{Interval: time.Duration(w >> 1), Changed: w&1 == 1})
	}
	if len(b) != 0 {
		return fmt.Errorf("revisit: policy state has %d bytes left over", len(b))
	}
	p.History, p.Rate, p.Probes = history, rate, int(min(probes, math.MaxInt32))
	return nil
}

var errTruncated = errors.New("revisit: policy state is truncated")
