package fetch

import "github.com/crawlconsole/crawlconsole/engine/page"

// pageLinks is what a page's one tokenizer pass reads for the crawl (engine/page).
type pageLinks = page.Links

// readPage reads a fetched HTML page's links and parses it for every other reader
// (block-page judge, signature) in one tokenizer pass (page.Read).
func readPage(body []byte, contentType, token string) (pageLinks, *page.Parsed) {
	return page.Read(body, contentType, token)
}

// extractLinks reads a page's links alone (page.ScanLinks): the fetcher keeps no
// parse (Config.KeepParse off).
func extractLinks(body []byte, token string) pageLinks { return page.ScanLinks(body, token) }
