package commands

import (
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/crawlconsole/crawlconsole/engine/control"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

func init() {
	Register(Command{Name: "dns flush", Args: "[domain]", Max: 1, Control: true,
		Help: "drop DNS answers (all if no domain)", Complete: dnsNames, Run: runDNSFlush})
}

// dnsNames proposes domains and hosts for ":dns flush" completion.
func dnsNames(con Console) []string {
	v := con.Snapshot().DNS
	if v == nil {
		return nil
	}
	var out []string
	for _, d := range v.Slowest {
		out = append(out, d.Domain)
	}
	for _, e := range v.Negative {
		out = append(out, e.Host)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// runDNSFlush is ":dns flush [domain]": the engine drops the answers of domain and
// every name under it (all answers without a domain) and says how many went.
func runDNSFlush(con Console, args []string) (tea.Cmd, error) {
	domain := ""
	if len(args) == 1 {
		domain = strings.TrimSuffix(strings.ToLower(args[0]), ".")
		if domain == "" || strings.ContainsAny(domain, "/:@ ") {
			return nil, fmt.Errorf("dns flush: %q is not a domain name", args[0])
		}
	}
	action := "flush the DNS cache"
	if domain != "" {
		action += " for " + domain
	}
	return con.Common().ControlResult(action, func(ctrl control.Control) (string, error) {
		n, err := ctrl.FlushDNS(domain)
		if err != nil {
			return "", err
		}
		entries := pane.Thousands(int64(n)) + " entries"
		if n == 1 {
			entries = "1 entry"
		}
		if domain == "" {
			return "DNS cache flushed: " + entries + " dropped", nil
		}
		return "DNS cache flushed for " + domain + ": " + entries + " dropped", nil
	}), nil
}
