package front

import (
	"fmt"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/fetch"
	"github.com/crawlconsole/crawlconsole/engine/frontier"
)

// BenchmarkExtractLinks is a crawled page's links turned into rows, as the
// throughput bench's sandbox pages have them: fourteen absolute links (the site's
// home, its sections' lists, its top stories on section hosts, other sites'
// homes), each seen before but for one new story. One op is one page.
func BenchmarkExtractLinks(b *testing.B) {
	opts := config.DefaultOptions()
	f, _, _ := storeFront(b, &opts, frontier.NewDedupe(1<<20, 0.01, 1<<16))
	const pages = 200
	type page struct {
		task frontier.Task
		res  *fetch.Result
	}
	var ps []page
	for p := range pages {
		host := fmt.Sprintf("www.site%d.test", p%40)
		site := host[4:]
		links := []string{"http://" + host + "/"}
		for s, sec := range []string{"world", "science", "culture", "health"} {
			links = append(links, fmt.Sprintf("http://%s.%s/list?p=1", sec, site),
				fmt.Sprintf("http://%s.%s/top/%d-zoning-railway-solar.html", sec, site, s))
		}
		links = append(links, fmt.Sprintf("http://archive.%s/", site), fmt.Sprintf("http://www.site%d.test/", (p+1)%40),
			fmt.Sprintf("http://www.site%d.test/", (p+7)%40), fmt.Sprintf("http://www.site%d.test/", (p+13)%40))
		u := fmt.Sprintf("http://%s/story/%d.html", host, p)
		ps = append(ps, page{frontier.Task{URL: u, Host: host, Depth: 2}, &fetch.Result{FinalURL: u, Links: links}})
	}
	for _, p := range ps { // the links are known, as most of a crawl's are
		f.ExtractLinks(p.task, p.res, nil, "")
	}
	fresh := make([]string, 1<<16) // one new story a page
	for i := range fresh {
		fresh[i] = fmt.Sprintf("http://%s/new/%d.html", ps[i%pages].task.Host, i)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p := ps[i%pages]
		p.res.Links = append(p.res.Links[:13], fresh[i%len(fresh)])
		i++
		var known []string // as a crawl's savePage collects them
		f.ExtractLinks(p.task, p.res, &known, "")
	}
}
