package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/balance"
	"github.com/crawlconsole/crawlconsole/engine/cluster"
	"github.com/crawlconsole/crawlconsole/engine/cluster/embedded"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
)

// startPausedCluster starts the server, a paused master for opts and n workers
// (startDistCluster's calls, without the profile labels): the round starts when the
// master is resumed, with every site dealt.
func startPausedCluster(opts config.Options, n int, hb time.Duration) (*distCluster, error) {
	dir, err := os.MkdirTemp("", "bench-balance-e2e-nats-")
	if err != nil {
		return nil, err
	}
	c := &distCluster{dir: dir}
	fail := func(err error) (*distCluster, error) {
		c.close()
		return nil, err
	}
	token := fmt.Sprintf("e2e-%d", time.Now().UnixNano())
	if c.srv, err = embedded.Start(embedded.Options{Listen: "127.0.0.1:0", StoreDir: dir, Token: token}); err != nil {
		return fail(err)
	}
	connect := func(name string) (*cluster.Conn, error) { return c.connect(name, token) }
	conn, err := connect("master")
	if err != nil {
		return fail(err)
	}
	if c.master, err = engine.NewMaster(opts, config.MasterOptions{Conn: conn, HeartbeatEvery: hb}); err != nil {
		return fail(err)
	}
	c.master.Pause()
	if err := c.master.Start(); err != nil {
		return fail(err)
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("w%d", i+1)
		conn, err := connect(name)
		if err != nil {
			return fail(err)
		}
		var egress []string
		for _, b := range workerBinds(i) {
			egress = append(egress, "bind:"+b)
		}
		w, err := engine.StartWorker(config.WorkerOptions{Conn: conn, Node: name, Egress: egress, AllowPrivate: opts.AllowPrivate})
		if err != nil {
			return fail(err)
		}
		c.workers = append(c.workers, w)
	}
	return c, nil
}

// e2eStored reads a closed crawl's stored pages (port stripped: every sandbox has its
// own) and, with costs, the cost table its master left.
func e2eStored(db string, costs bool) (map[string]bool, []byte, error) {
	st, err := store.OpenReadOnly(db)
	if err != nil {
		return nil, nil, err
	}
	defer st.Close()
	urls, err := st.PageURLs()
	if err != nil {
		return nil, nil, err
	}
	out := make(map[string]bool, len(urls))
	for _, u := range urls {
		out[e2eNoPort(u)] = true
	}
	var table []byte
	if costs {
		if table, err = st.GetMeta(e2eCostsKey); err != nil || len(table) == 0 {
			return nil, nil, fmt.Errorf("no cost table under %q in the master's store (%v)", e2eCostsKey, err)
		}
	}
	return out, table, nil
}

// e2ePageCosts is a cost table (the master's JSON, one closed period a site) in
// which a site costs its pages × latency (a millisecond where latency is 0).
func e2ePageCosts(sitePages map[string]int, latency time.Duration) ([]byte, error) {
	type period struct {
		Periods []float64 `json:"periods"`
	}
	per := max(latency, time.Millisecond).Seconds()
	table := make(map[string]period, len(sitePages))
	for site, n := range sitePages {
		table[site] = period{Periods: []float64{float64(n) * per}}
	}
	return json.Marshal(table)
}

func e2eNoPort(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Host = u.Hostname()
	return u.String()
}

// e2eDiff counts the reference's pages a run did not store, and those it stored
// beyond them.
func e2eDiff(ref, got map[string]bool) (lost, extra int) {
	for u := range ref {
		if !got[u] {
			lost++
		}
	}
	for u := range got {
		if !ref[u] {
			extra++
		}
	}
	return lost, extra
}

// e2eSitePages counts stored pages per site (registered domain).
func e2eSitePages(cfg sandbox.Config, urls map[string]bool) map[string]int {
	site := map[string]string{}
	for _, s := range sandbox.NewWeb(cfg).Sites() {
		for _, h := range s.Hosts {
			site[h] = s.Domain
		}
	}
	out := map[string]int{}
	for raw := range urls {
		if u, err := url.Parse(raw); err == nil {
			out[site[u.Hostname()]]++
		}
	}
	return out
}

// e2eIdeal is the even spread's largest share of pages (as measured) over LPT's on
// the pages per site.
func e2eIdeal(sitePages map[string]int, evenPages []int) float64 {
	costs := map[string][]float64{}
	total := 0.0
	for s, n := range sitePages {
		costs[s] = []float64{float64(n)}
		total += float64(n)
	}
	items := balance.ItemsOf(balance.Weights(costs))
	a, err := balance.LPT(items, e2eWorkers)
	if err != nil {
		return 0
	}
	best := slices.Max(balance.Totals(items, a, e2eWorkers)) * total
	even := 0
	for _, p := range evenPages {
		even = max(even, p)
	}
	return best / float64(even)
}

func e2eFmtSites(pages map[string]int) string {
	names := make([]string, 0, len(pages))
	for s := range pages {
		names = append(names, s)
	}
	sort.Slice(names, func(i, j int) bool { return pages[names[i]] > pages[names[j]] })
	parts := make([]string, len(names))
	for i, s := range names {
		parts[i] = fmt.Sprintf("%s %d", s, pages[s])
	}
	return strings.Join(parts, ", ")
}

func e2eFmtDurs(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("%.2f", d.Seconds())
	}
	return strings.Join(parts, " / ")
}

func e2eFmtInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, " / ")
}

// e2eUnmeasured is the sites of the reference crawl to which the last even
// round's master, from its workers' results, gave no cost: its table (as stored)
// must name every site it dealt, whatever a balanced round plans from.
func e2eUnmeasured(table []byte, sitePages map[string]int) ([]string, error) {
	var costs map[string]struct {
		Periods []float64 `json:"periods"`
		Current float64   `json:"current"`
	}
	if err := json.Unmarshal(table, &costs); err != nil {
		return nil, fmt.Errorf("the even round's cost table: %w", err)
	}
	out := []string{}
	for site := range sitePages {
		c := costs[site]
		sum := c.Current
		for _, x := range c.Periods {
			sum += x
		}
		if sum <= 0 {
			out = append(out, site)
		}
	}
	slices.Sort(out)
	return out, nil
}
