package pane

import (
	"fmt"

	"github.com/crawlconsole/crawlconsole/engine/plural"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// RobotsWait says the URLs waiting for their site's robots.txt to answer, as waiting,
// not failed: "robots.txt wait: 180 URLs on 3 sites not answering"; "" when none
// waits. The headless progress line, `ctl status` and the end of a crawl say it in
// these words, under the header's label; it is not the crawl's whole "deferred"
// (a disabled host's URLs, a budget's), which ctl status --json gives.
func RobotsWait(r view.RobotsWaiting) string {
	if r.URLs == 0 {
		return ""
	}
	return fmt.Sprintf("robots.txt wait: %s on %s not answering", plural.Count(r.URLs, "URL"), plural.Count(r.Sites, "site"))
}
