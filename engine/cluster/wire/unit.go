package wire

import "github.com/crawlconsole/crawlconsole/engine/frontier"

// UnitOf is a task's assignment unit, the name the master deals and moves work by
// and a worker releases it by: its site (a declared site's name, or the
// registered domain the frontier gave it), and for a social site's search results
// the keyword too: each keyword shard of a social site is dealt on its own.
func UnitOf(t frontier.Task) string {
	site := t.Site
	if site == "" {
		site = frontier.Site(t.Host)
	}
	if t.Keyword != "" {
		return site + " · " + t.Keyword
	}
	return site
}
