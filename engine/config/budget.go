package config

import "fmt"

// BudgetOptions caps the pages hosts and sites are given (YAML "budgets"); 0 = no
// cap. A site is a declared site (sites[]), else the host's registered domain.
type BudgetOptions struct {
	HostRound int `yaml:"host_round"` // pages per host per round
	HostTotal int `yaml:"host_total"` // pages per host over the whole crawl
	SiteRound int `yaml:"site_round"` // pages per site per round (sites[].budget and :budget override it)
	SiteTotal int `yaml:"site_total"` // pages per site over the whole crawl
}

func (o BudgetOptions) validate() error {
	if o.HostRound < 0 || o.HostTotal < 0 || o.SiteRound < 0 || o.SiteTotal < 0 {
		return fmt.Errorf("budgets: page budgets must be >= 0 (0 = no cap), got %+v", o)
	}
	return nil
}
