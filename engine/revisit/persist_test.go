package revisit

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestPolicyStateRoundTrips(t *testing.T) {
	long := make([]Visit, DefaultHistoryLen)
	for i := range long {
		long[i] = Visit{Interval: time.Duration(i) * 7 * time.Hour, Changed: i%3 == 0}
	}
	tests := []struct {
		name string
		page Page
		size int // most bytes the encoding may take
	}{
		{"nothing to keep", Page{}, 0},
		{"rate only", Page{Rate: 0.37}, 11},
		{"one visit", Page{History: []Visit{{Interval: 90 * time.Minute, Changed: true}}, Rate: 1.5, Probes: 1}, 18},
		{"zero and huge intervals", Page{History: []Visit{{}, {Interval: math.MaxInt64, Changed: true}}}, 22},
		{"a full history", Page{History: long, Rate: 2, Probes: 3}, 11 + DefaultHistoryLen*8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := MarshalPolicyState(&tc.page)
			if len(b) > tc.size {
				t.Errorf("%d bytes, want at most %d", len(b), tc.size)
			}
			got := Page{History: []Visit{{Interval: 1}}, Rate: 9, Probes: 9} // overwritten
			if err := UnmarshalPolicyState(&got, b); err != nil {
				t.Fatal(err)
			}
			want := tc.page
			if len(want.History) == 0 {
				want.History = nil
			}
			if len(got.History) == 0 {
				got.History = nil
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got %+v, want %+v", got, want)
			}
		})
	}
}

func TestPolicyStateRejectsDamage(t *testing.T) {
	good := MarshalPolicyState(&Page{History: []Visit{{Interval: time.Hour}, {Interval: 300 * time.Hour, Changed: true}}, Rate: 1})
	tests := []struct {
		name string
		b    []byte
		want string
	}{
		{"unknown version", append([]byte{9}, good[1:]...), "version 9"},
		{"cut in the rate", good[:5], "truncated"},
		{"cut in the history", good[:len(good)-1], "truncated"},
		{"bytes left over", append(append([]byte(nil), good...), 0), "left over"},
		{"absurd visit count", append(append([]byte(nil), good[:10]...), 0xFF, 0xFF, 0xFF, 0x7F), "truncated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p Page
			err := UnmarshalPolicyState(&p, tc.b)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}
