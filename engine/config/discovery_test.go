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
