package master

import (
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/master/verdicts"
)

// A master's crew without a store gives the workers that join no render verdicts
// at first (nothing kept to read, and no panic reading it), then those the workers
// taught it.
func TestAMasterWithoutAStoreStartsAnEmptyVerdictsBook(t *testing.T) {
	p := crawlPort{p: Parts{Opts: &config.Options{}, Verdicts: &verdicts.Book{}}}
	if got := p.Settings().RenderVerdicts; got != nil {
		t.Fatalf("a join's render verdicts = %v, want none", got)
	}
	p.p.Verdicts.Note(p.verdictsMeta(), &fetch.Rendering{Section: "shop.test/app", Dynamic: true})
	if got := p.Settings().RenderVerdicts; !got["shop.test/app"] || len(got) != 1 {
		t.Fatalf("a join's render verdicts after a worker's render = %v, want shop.test/app: true", got)
	}
}
