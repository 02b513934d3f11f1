package network

import (
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// TestSizingEstimate: the pane shows the engine's estimate (Sizing.Estimate) with
// its inputs, "?" for unknown ones, and names what is missing.
func TestSizingEstimate(t *testing.T) {
	rows := func(reqRef ...int64) *view.EgressView {
		v := &view.EgressView{}
		for i := 0; i < len(reqRef); i += 2 {
			v.Egresses = append(v.Egresses, egress.EgressRow{OnNode: true, Requests: reqRef[i], Refusals: reqRef[i+1]})
		}
		v.Egresses = append(v.Egresses, egress.EgressRow{Requests: 9999, Refusals: 1}) // another node's: not counted
		return v
	}
	est := func(declared view.Sizing, v *view.EgressView) *view.Sizing {
		declared.Estimate(v)
		return &declared
	}
	observed := view.Sizing{PagesPerIP: 150, PagesPerIPFrom: view.PagesPerIPObserved}
	tests := []struct {
		name string
		s    *view.Sizing
		want string
	}{
		{"observed only", est(view.Sizing{}, rows(1000, 5, 500, 5)), "= ceil(? × ? ÷ ≈150) = ?   unknown: keywords and pages/keyword"},
		{"no refusal yet", est(view.Sizing{}, rows(300, 0, 700, 0)), "= ceil(? × ? ÷ ≥700) = ?   unknown: keywords and pages/keyword"},
		{"nothing fetched", est(view.Sizing{}, rows()), "= ceil(? × ? ÷ ?) = ?   unknown: keywords, pages/keyword and pages per IP"},
		{"no estimate", nil, "unknown: keywords, pages/keyword and pages per IP"},
		{"all known", est(view.Sizing{Keywords: 40, PagesPerKeyword: 5}, rows(1000, 5, 500, 5)), "= ceil(40 × 5 ÷ ≈150) = 2"},
		{"exact multiple", est(view.Sizing{Keywords: 30, PagesPerKeyword: 5}, rows(1000, 5, 500, 5)), "= ceil(30 × 5 ÷ ≈150) = 1"},
		{"ip figure a floor", est(view.Sizing{Keywords: 400, PagesPerKeyword: 5}, rows(300, 0, 700, 0)), "= ceil(400 × 5 ÷ ≥700) ≤ 3"},
		{"declared quota over observed", est(view.Sizing{Keywords: 24, PagesPerKeyword: 5, PagesPerIP: 50}, rows(1000, 5)), "= ceil(24 × 5 ÷ ≈50) = 3"},
		{"quota unknown", est(view.Sizing{Keywords: 24, PagesPerKeyword: 5}, nil), "= ceil(24 × 5 ÷ ?) = ?   unknown: pages per IP"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := sizingFigures(tc.s, false); !strings.HasPrefix(got, tc.want) && !strings.HasSuffix(got, tc.want) {
				t.Fatalf("figures = %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("wide says where figures come from", func(t *testing.T) {
		for _, tc := range []struct {
			s    view.Sizing
			want []string
		}{
			{observed, []string{"(not in the snapshot)", "observed as requests per refusal"}},
			{view.Sizing{Keywords: 4, PagesPerKeyword: 5, PagesPerIP: 50, PagesPerIPFrom: view.PagesPerIPConfig, VPNs: 1}, []string{"= 1; pages per IP from rounds.pages_per_ip"}},
		} {
			got := sizingFigures(&tc.s, true)
			for _, want := range tc.want {
				if !strings.Contains(got, want) {
					t.Fatalf("long figures %q lack %q", got, want)
				}
			}
		}
	})
}
