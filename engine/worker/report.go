package worker

import (
	"net/http"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/cluster/wire"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
	"github.com/crawlconsole/crawlconsole/engine/lanes"
	"github.com/crawlconsole/crawlconsole/engine/page"
	"github.com/crawlconsole/crawlconsole/engine/stories"
)

// Meta reads a fetched page's metadata from the parse that found its links (nil:
// none); at bounds plausible dates.
type Meta func(t frontier.Task, res *fetch.Result, at time.Time) *page.Metadata

// Report is how a task that ended on one of the worker's lanes goes to the master:
// with what the master's record needs of the page and nothing more. A 2xx page
// carries its signature, metadata (meta) and, on an article's first fetch, its
// story fingerprint, all from the parse that found its links (one tokenizer pass:
// the master does not parse the body again); the parse itself stays here, and of
// the response's headers only those the master reads (headers) go along.
func Report(o lanes.Outcome, headers []string, meta Meta) wire.Result {
	if o.Res != nil {
		res := *o.Res
		if res.Parsed != nil && res.Status/100 == 2 {
			sig, text, ok := res.Parsed.Sign(res.PageBody(), res.PageType())
			res.Signed = &fetch.Signed{Sig: sig, OK: ok, Meta: meta(o.Task, &res, o.At)}
			if ok && res.DiscoveredKind == "" && !o.Task.Refetch {
				// The master groups first fetches of articles into stories.
				res.Signed.Story, res.Signed.HasStory = stories.Fingerprint(text)
			}
		}
		res.Parsed = nil
		res.Header = make(http.Header, len(headers))
		for _, k := range headers {
			if v := o.Res.Header.Values(k); len(v) > 0 {
				res.Header[k] = v
			}
		}
		if v := o.Res.Header.Get("Date"); v != "" && o.Res.DiscoveredKind != "" {
			res.Header.Set("Date", v) // a sitemap's dates are judged against it
		}
		o.Res = &res
	}
	return wire.Result{Task: o.Task, Lane: o.Lane, Egress: o.Egress, Kind: o.Kind, Res: o.Res, Hops: o.Hops, At: o.At}
}
