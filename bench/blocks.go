package main

// Benchmark "blocks": does the crawl recognise real anti-bot answers, on
// both routes, and leave ordinary look-alike pages alone?
//
//	go run ./bench blocks [-lanes 8] [-history 10] [-normal-d 20s] [-normal-hosts 40]
//
// The block corpus (sandbox/blocks: 71 vendor block and challenge answers of 21
// vendors, 45 ordinary pages that look like them, sources noted) is served by
// sandbox.BlockWeb, each answer on its own host, and crawled by the engine as it is
// four times: direct route (no egress) and through four bind egresses, each with no
// host history (the answer is the host's first page) and with history (-history
// ordinary pages of the host's template first). An answer counts as refused when the
// crawl punished it (a refusal recorded in the store with its evidence: lane
// back-off, pair ban, rotation or disabled host).
//
// Baseline: the classifiers the engine had before (blocks_baseline.go), applied to
// the same answers with the same histories.
//
// Figures: recall (vendor answers refused / vendor answers) and precision (vendor
// answers refused / answers refused) on the egress route and on the direct route
// (_direct), over both history settings; false_refusal_hosts_disabled: look-alike
// hosts that ended on the host_disable_list; confirm_fetches: refetches spent
// confirming soft refusals per 1,000 pages of a normal crawl of the sandbox web
// (-normal-d real time, the demo's settings), where no answer is a block.

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/crawlconsole/crawlconsole/engine"
	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
	"github.com/crawlconsole/crawlconsole/ui/cli"
)

func init() { register("blocks", runBlocks) }

// blocksRun is one crawl of the corpus: which answers were refused, which hosts
// ended disabled.
type blocksRun struct {
	refused  map[string]bool
	disabled map[string]bool
	fetches  int64
	confirm  int64
}

// blocksScore is recall and precision over some runs.
type blocksScore struct{ tp, fp, blocks, look int }

func (s *blocksScore) add(corpus []sandbox.BlockAnswer, refused func(sandbox.BlockAnswer) bool) {
	for _, a := range corpus {
		r := refused(a)
		switch {
		case a.Block:
			s.blocks++
			if r {
				s.tp++
			}
		case r:
			s.fp++
		}
		if !a.Block {
			s.look++
		}
	}
}

func (s blocksScore) recall() float64 { return egressShare(s.tp, s.blocks) }
func (s blocksScore) precision() float64 {
	if s.tp+s.fp == 0 {
		return 1
	}
	return float64(s.tp) / float64(s.tp+s.fp)
}

func runBlocks(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("blocks", flag.ContinueOnError)
	lanesN := fs.Int("lanes", 8, "lanes.max of each crawl of the corpus")
	history := fs.Int("history", 10, "pages of a host's template met before its answer in the runs with history")
	normalD := fs.Duration("normal-d", 20*time.Second, "real time of the normal crawl that measures confirm fetches")
	normalHosts := fs.Int("normal-hosts", 40, "sandbox hosts of the normal crawl")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if *lanesN < 1 || *history < 1 || *normalD <= 0 {
		return nil, errors.New("-lanes, -history and -normal-d must be positive")
	}
	corpus, err := sandbox.BlockCorpus()
	if err != nil {
		return nil, err
	}
	nBlocks := 0
	for _, a := range corpus {
		if a.Block {
			nBlocks++
		}
	}
	fmt.Printf("blocks: corpus of %d vendor answers and %d look-alikes (sandbox/blocks), each on its own host; lanes %d\n",
		nBlocks, len(corpus)-nBlocks, *lanesN)
	fmt.Printf("  GOMAXPROCS %d, %s, load average %s\n\n", runtime.GOMAXPROCS(0), runtime.Version(), loadAvg(3))

	var egressScore, directScore, oldEgress, oldDirect blocksScore
	falseDisabled := map[string]bool{}
	fmt.Printf("%-28s %8s %9s %7s %8s  %s\n", "run", "recall", "precision", "FP", "confirm", "missed / false refusals")
	for _, route := range []struct {
		name     string
		egresses []string
	}{{"direct", nil}, {"egress", []string{"bind:127.0.0.2", "bind:127.0.0.3", "bind:127.0.0.4", "bind:127.0.0.5"}}} {
		for _, hist := range []int{0, *history} {
			r, err := blocksCrawl(corpus, route.egresses, hist, *lanesN)
			if err != nil {
				return nil, fmt.Errorf("%s crawl: %w", route.name, err)
			}
			var s blocksScore
			s.add(corpus, func(a sandbox.BlockAnswer) bool { return r.refused[a.Name] })
			usual := make([]int, hist)
			for i := range usual {
				usual[i] = 20000
			}
			var old blocksScore
			old.add(corpus, func(a sandbox.BlockAnswer) bool { return baselineRefused(a, route.egresses == nil, usual) })
			if route.egresses == nil {
				directScore.tp, directScore.fp, directScore.blocks, directScore.look = directScore.tp+s.tp, directScore.fp+s.fp, directScore.blocks+s.blocks, directScore.look+s.look
				oldDirect.tp, oldDirect.fp, oldDirect.blocks = oldDirect.tp+old.tp, oldDirect.fp+old.fp, oldDirect.blocks+old.blocks
			} else {
				egressScore.tp, egressScore.fp, egressScore.blocks, egressScore.look = egressScore.tp+s.tp, egressScore.fp+s.fp, egressScore.blocks+s.blocks, egressScore.look+s.look
				oldEgress.tp, oldEgress.fp, oldEgress.blocks = oldEgress.tp+old.tp, oldEgress.fp+old.fp, oldEgress.blocks+old.blocks
			}
			var wrong []string
			for _, a := range corpus {
				if a.Block != r.refused[a.Name] {
					wrong = append(wrong, a.Name)
				}
				if !a.Block && r.disabled[a.Name] {
					falseDisabled[a.Name] = true
				}
			}
			label := fmt.Sprintf("%s, history %d", route.name, hist)
			fmt.Printf("%-28s %8.4f %9.4f %7d %8d  %v\n", label, s.recall(), s.precision(), s.fp, r.confirm, wrong)
			fmt.Printf("%-28s %8.4f %9.4f %7d %8s\n", "  baseline (old classifier)", old.recall(), old.precision(), old.fp, "-")
		}
	}

	confirm, pages, err := blocksNormalCrawl(*normalHosts, *normalD)
	if err != nil {
		return nil, fmt.Errorf("normal crawl: %w", err)
	}
	perK := 0.0
	if pages > 0 {
		perK = 1000 * float64(confirm) / float64(pages)
	}
	fmt.Println()
	fmt.Printf("recall                       = %.4f  (goal ≥ 0.95; baseline %.4f)\n", egressScore.recall(), oldEgress.recall())
	fmt.Printf("precision                    = %.4f  (goal ≥ 0.99; baseline %.4f)\n", egressScore.precision(), oldEgress.precision())
	fmt.Printf("recall_direct                = %.4f  (goal ≥ 0.95; baseline %.4f)\n", directScore.recall(), oldDirect.recall())
	fmt.Printf("precision_direct             = %.4f  (goal ≥ 0.99; baseline %.4f)\n", directScore.precision(), oldDirect.precision())
	fmt.Printf("false_refusal_hosts_disabled = %d       (goal 0)\n", len(falseDisabled))
	fmt.Printf("confirm_fetches              = %.2f    per 1,000 pages (goal ≤ 5; %d refetches in %d pages of a normal crawl)\n", perK, confirm, pages)
	return map[string]any{
		"recall": crawlRound(egressScore.recall(), 4), "precision": crawlRound(egressScore.precision(), 4),
		"recall_direct": crawlRound(directScore.recall(), 4), "precision_direct": crawlRound(directScore.precision(), 4),
		"false_refusal_hosts_disabled": len(falseDisabled), "confirm_fetches": crawlRound(perK, 3),
		"baseline_recall": crawlRound(oldEgress.recall(), 4), "baseline_precision": crawlRound(oldEgress.precision(), 4),
		"baseline_recall_direct": crawlRound(oldDirect.recall(), 4), "baseline_precision_direct": crawlRound(oldDirect.precision(), 4),
		"vendor_answers": nBlocks, "lookalikes": len(corpus) - nBlocks, "normal_pages": pages,
	}, nil
}

// blocksCrawl crawls the whole corpus once and reads back which answers the crawl
// punished (store.Refusals) and which hosts ended disabled.
func blocksCrawl(corpus []sandbox.BlockAnswer, egresses []string, history, lanesN int) (blocksRun, error) {
	w, err := sandbox.StartBlockWeb(history)
	if err != nil {
		return blocksRun{}, err
	}
	defer w.Close()
	dir, err := os.MkdirTemp("", "bench-blocks-")
	if err != nil {
		return blocksRun{}, err
	}
	defer os.RemoveAll(dir)
	o := config.DefaultOptions()
	for _, a := range corpus {
		o.Seeds = append(o.Seeds, w.Seed(a.Name))
	}
	o.DB = filepath.Join(dir, "crawl.db")
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Resolver = loopbackResolver{}
	o.Lanes.Max = lanesN
	o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, 3*time.Millisecond
	o.HostRate = 0
	o.Fetch.RefusalBackoff = 10 * time.Millisecond
	o.Fetch.MaxRetryAfter = 50 * time.Millisecond
	o.Egress = egresses
	o.Rotation.PerNode = 0
	o.Revisit.Enabled = false
	e, err := engine.New(o)
	if err != nil {
		return blocksRun{}, err
	}
	if err := e.Start(); err != nil {
		e.Close()
		return blocksRun{}, err
	}
	// Done, or quiet: every answer was asked for and nothing was fetched for a while
	// (disabled hosts keep their URLs deferred for DisableFor; they are not waited for).
	answered := func() bool {
		for _, a := range corpus {
			if w.Hits(w.AnswerURL(a.Name)) == 0 {
				return false
			}
		}
		return true
	}
	r := blocksRun{refused: map[string]bool{}, disabled: map[string]bool{}}
	last, quietSince := int64(-1), time.Now()
	deadline := time.Now().Add(3 * time.Minute)
wait:
	for time.Now().Before(deadline) {
		select {
		case <-e.Done():
			break wait
		case <-time.After(100 * time.Millisecond):
		}
		n := int64(w.Requests())
		if n != last {
			last, quietSince = n, time.Now()
		} else if answered() && time.Since(quietSince) > 1500*time.Millisecond {
			break
		}
	}
	if v := e.Snapshot().Egress; v != nil {
		for _, d := range v.Disabled {
			for _, a := range corpus {
				if w.Host(a.Name) == d.Host {
					r.disabled[a.Name] = true
				}
			}
		}
	}
	st := e.Stats()
	r.fetches, r.confirm = st.PagesFetched, st.ConfirmFetches
	if err := e.Close(); err != nil {
		return blocksRun{}, err
	}
	s, err := store.Open(o.DB, store.Options{})
	if err != nil {
		return blocksRun{}, err
	}
	defer s.Close()
	for _, a := range corpus {
		rs, err := s.Refusals(w.AnswerURL(a.Name))
		if err != nil {
			return blocksRun{}, err
		}
		r.refused[a.Name] = len(rs) > 0
	}
	return r, nil
}

// blocksNormalCrawl crawls the sandbox web with the demo's settings for d and
// returns the confirmation refetches and the pages fetched.
func blocksNormalCrawl(hosts int, d time.Duration) (confirm, pages int64, err error) {
	cfg := crawlSandboxConfig(hosts, 20)
	sb, err := sandbox.Start(cfg)
	if err != nil {
		return 0, 0, err
	}
	defer sb.Close()
	dir, err := os.MkdirTemp("", "bench-blocks-normal-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	e, err := engine.New(cli.DemoOptions(sb, filepath.Join(dir, "crawl.db")))
	if err != nil {
		return 0, 0, err
	}
	if err := e.Start(); err != nil {
		e.Close()
		return 0, 0, err
	}
	select {
	case <-e.Done():
	case <-time.After(d):
	}
	st := e.Stats()
	if err := e.Close(); err != nil {
		return 0, 0, err
	}
	return st.ConfirmFetches, st.PagesFetched, nil
}
