package ui

import (
	"strings"
	"testing"
)

// The Revisit pane shows, per class, the plan (objective, budget) and the
// freshness and age its schedule is heading for, with the pages the budget cannot
// follow; b swaps the due queue for the list of those pages and back.
func TestRevisitPaneShowsClassPlans(t *testing.T) {
	h := newHarness(t, 120, 40, Options{})
	h.press("6")
	h.mustShow("PLAN", "FRESH→", "AGE→", "BEHIND")
	for _, tc := range []struct {
		class string
		want  []string
	}{
		{"soc ", []string{"soc", "3d", "15,120", "age", "1/d", "38%", "3h12m", "0"}},
		{"web_com ", []string{"web_com", "14d", "20,544", "balanced", "0.1/d", "47%", "2d05h", "312"}},
		{"web_edu ", []string{"web_edu", "60d", "1,433", "balanced", "0.1/d", "-", "-", "-"}}, // no estimate yet
		{"web_gov ", []string{"web_gov", "no", "limit", "freshness", "0.05/d", "81%", "9d", "17"}},
	} {
		if row := h.rowOf("  " + tc.class); !fieldsInOrder(row, tc.want...) {
			t.Errorf("class row %q = %q, lacks %q", tc.class, row, tc.want)
		}
	}
	h.press("b")
	h.mustShow("NOT FOLLOWED (b: due queue)", "CHG/DAY", "FETCH/DAY")
	if row := h.rowOf("news-00.sandbox.test/live/0.html"); !fieldsInOrder(row, "web_com", "4.0", "0.1") {
		t.Errorf("not-followed row = %q", row)
	}
	if strings.Contains(h.body(), "DUE PAGE") {
		t.Fatalf("b should replace the due queue:\n%s", h.body())
	}
	h.press("n") // the due page under the hidden cursor is not revisited unseen
	h.mustShow("n revisits a due page: b shows the due queue again")
	h.mustCall()
	h.press("b")
	h.mustShow("DUE PAGE")
}

// Narrow terminals get the plans on one line; the seed policy plans nothing and the
// pane says so rather than showing an empty list.
func TestRevisitPlansNarrowAndSeed(t *testing.T) {
	h := newHarness(t, 80, 24, Options{})
	h.press("6")
	h.mustShow("heading for", "soc age 1/d 38% 3h12m")
	s := h.ctrl.Snapshot()
	s.Revisit.Policy, s.Revisit.Plans, s.Revisit.Behind = "seed", nil, nil
	h.send(SnapshotMsg{Snapshot: s})
	if strings.Contains(h.body(), "heading for") {
		t.Fatalf("seed policy: no plans line expected:\n%s", h.body())
	}
	h.press("b")
	h.mustShow("the seed policy plans no budget")
}
