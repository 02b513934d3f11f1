package panes

import (
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/ui/fake"
)

// With no budget set, the BUDGET column says "-", not a used count of 0 that
// nothing keeps (the ledger runs only once some budget is set).
func TestSitesBudgetWithoutACapIsADash(t *testing.T) {
	p := &sitesPane{width: 80}
	now := fake.Epoch
	if c := p.cells(&view.SiteRow{Name: "a", Stored: 500}, now); c[len(c)-1] != "-" {
		t.Errorf("no budget: BUDGET %q, want -", c[len(c)-1])
	}
	if c := p.cells(&view.SiteRow{Name: "a", BudgetUsed: 40, Budget: 200}, now); c[len(c)-1] != "40/200" {
		t.Errorf("a budget: BUDGET %q, want 40/200", c[len(c)-1])
	}
}
