package commands

import (
	"fmt"
	"net/url"

	tea "github.com/charmbracelet/bubbletea"
)

func init() {
	Register(Command{Name: "revisit now", Args: "URL", Min: 1, Max: 1, Control: true,
		Help: "refetch a stored page now (n)", Complete: dueURLs, Run: runRevisitNow})
}

// dueURLs proposes the due queue's URLs for ":revisit now" completion.
func dueURLs(con Console) []string {
	if con.Snapshot().Revisit == nil {
		return nil
	}
	out := make([]string, 0, len(con.Snapshot().Revisit.Due))
	for _, d := range con.Snapshot().Revisit.Due {
		out = append(out, d.URL)
	}
	return out
}

func runRevisitNow(con Console, args []string) (tea.Cmd, error) {
	u, err := url.Parse(args[0])
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("revisit now: %q is not an http(s) URL", args[0])
	}
	return RevisitNow(con.Common(), args[0]), nil
}
