// Package nodetable is a master's node table as the store's meta table keeps it:
// `stats --json` reads it, and a restarted master awaits the workers it names.
package nodetable

import (
	"encoding/json"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// Row is one worker of the saved table.
type Row struct {
	Name      string         `json:"name"`
	State     view.NodeState `json:"state"`
	Heartbeat time.Time      `json:"heartbeat"`
	Joined    time.Time      `json:"joined"`
	Hosts     int            `json:"hosts"`
	Results   int64          `json:"results"`
	Late      int64          `json:"late"`
}

// Awaited is the state a saved node table shows for a worker the last life
// knew live that has not rejoined yet, while the grace period waits for it.
const Awaited view.NodeState = "awaited"

// Live are the workers a saved node table shows neither dead nor left: those a
// restarted master's last life may have handed URLs to, or still awaited from the
// life before it (Awaited). nil when data is not such a table.
func Live(data []byte) []string {
	var rows []Row
	if json.Unmarshal(data, &rows) != nil {
		return nil
	}
	var out []string
	for _, r := range rows {
		if r.Name != "" && r.State != view.NodeDead && r.State != view.NodeLeft {
			out = append(out, r.Name)
		}
	}
	return out
}
