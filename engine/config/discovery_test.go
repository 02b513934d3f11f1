package config

import "testing"

func TestPollBudgetMustNotBeNegative(t *testing.T) {
	t.Parallel()
	o := DefaultOptions()
	o.Discovery.PollBudget = -1
	if err := o.Discovery.validate(); err == nil {
		t.Fatal("a negative discovery.poll_budget was accepted")
	}
}

func TestFetchBudgetMustNotBeNegative(t *testing.T) {
	t.Parallel()
	o := DefaultOptions()
	o.Discovery.FetchBudget = -1
	if err := o.Discovery.validate(); err == nil {
		t.Fatal("a negative discovery.fetch_budget was accepted")
	}
}

func TestRateHalfLifeMustNotBeNegative(t *testing.T) {
	t.Parallel()
	o := DefaultOptions()
	o.Discovery.RateHalfLife = -1
	if err := o.Discovery.validate(); err == nil {
		t.Fatal("a negative discovery.rate_half_life was accepted")
	}
}

func TestMaxDocumentBytesIsBounded(t *testing.T) {
	t.Parallel()
	if DefaultOptions().Discovery.MaxDocumentBytes != 50<<20 {
		t.Errorf("discovery.max_document_bytes defaults to %d, want the sitemaps protocol's 50 MB", DefaultOptions().Discovery.MaxDocumentBytes)
	}
	for _, n := range []int{-1, 2 << 30} {
		o := DefaultOptions()
		o.Discovery.MaxDocumentBytes = n
		if err := o.Discovery.validate(); err == nil {
			t.Errorf("discovery.max_document_bytes %d was accepted", n)
		}
	}
}
