package pane

import (
	"fmt"

	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/internal/plural"
)

// RobotsWait says the URLs waiting for their site's robots.txt to answer, as waiting,
// not failed: "deferred: 180, robots.txt not answering on 3 sites"; "" when none
// waits. The header, the headless progress line, `ctl status` and the end of a
// crawl say it in these words.
func RobotsWait(r view.RobotsWaiting) string {
	if r.URLs == 0 {
		return ""
	}
	return fmt.Sprintf("deferred: %d, robots.txt not answering on %s", r.URLs, plural.Count(r.Sites, "site"))
}
