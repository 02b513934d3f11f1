package engine

import (
	"context"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/store"
)

// loopResolver resolves every name to 127.0.0.1, where sandbox.BlockWeb answers
// for every host of the block corpus (and for the hosts its redirects point to).
type loopResolver struct{}

func (loopResolver) LookupAddrs(context.Context, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// blockCrawl crawls one answer of the block corpus, met after `history` pages of its
// host's template, on the direct route (egresses nil) or through bind egresses. It
// returns the engine (running) and its store path.
func blockCrawl(t *testing.T, w *sandbox.BlockWeb, name string, egresses []string) (*Engine, string) {
	t.Helper()
	o := DefaultOptions()
	o.Seeds = []string{w.Seed(name)}
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Resolver = loopResolver{}
	o.Lanes.Max = 2
	o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, 2*time.Millisecond
	o.HostRate = 0
	o.Fetch.RefusalBackoff = 10 * time.Millisecond
	o.Egress = egresses
	o.Rotation.PerNode = 0
	return startEngine(t, o), o.DB
}

func refusalsOf(t *testing.T, db, url string) []store.Refusal {
	t.Helper()
	st, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rs, err := st.Refusals(url)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

var bindEgresses = []string{"e1=bind:127.0.0.2", "e2=bind:127.0.0.3"}

// TestArticleMentioningCaptchaIsStored: on a host whose usual pages the crawl has
// seen, a news brief and a login page that mention 验证码 are pages, stored, on both
// routes; nothing is refused and the host stays enabled (issue 20: the old rule took
// any page under 32 KiB with 验证 in it for a ban and disabled the site for 2 h).
func TestArticleMentioningCaptchaIsStored(t *testing.T) {
	w, err := sandbox.StartBlockWeb(10)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, name := range []string{"brief-zh-captcha", "login-zh-captcha", "article-captcha-zh"} {
		for _, route := range []struct {
			name string
			eg   []string
		}{{"direct", nil}, {"egress", bindEgresses}} {
			t.Run(name+"/"+route.name, func(t *testing.T) {
				e, db := blockCrawl(t, w, name, route.eg)
				waitDone(t, e, 30*time.Second)
				st := e.Stats()
				if st.Refused != 0 || st.Errors["refused"] != 0 {
					t.Errorf("refused %d (errors %v)", st.Refused, st.Errors)
				}
				if v := e.Snapshot().Egress; v != nil && (len(v.Disabled) > 0 || len(v.PairBans) > 0) {
					t.Errorf("host punished: disabled %v, pair bans %v", v.Disabled, v.PairBans)
				}
				e.Close()
				pages := storedPages(t, db)
				if !slices.Contains(pages, w.AnswerURL(name)) {
					t.Fatalf("%s not stored (stored %d pages)", w.AnswerURL(name), len(pages))
				}
				if rs := refusalsOf(t, db, w.AnswerURL(name)); len(rs) > 0 {
					t.Fatalf("refusals recorded: %+v", rs)
				}
			})
		}
	}
}

// TestAWSWAF405RotatesOnBothRoutes: AWS WAF's CAPTCHA answer (405 with
// x-amzn-waf-action) is a refusal named after its vendor on both routes: through
// egresses it rotates to the other egress and then disables the host, the direct
// route (a node with one egress) backs off and fails the URL as refused; the
// evidence is in the log and in the store for `show URL` (issue 20: a 405 used to
// be an http_4xx failure, with no rotation).
func TestAWSWAF405RotatesOnBothRoutes(t *testing.T) {
	w, err := sandbox.StartBlockWeb(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	url := w.AnswerURL("aws-405-captcha")
	host := w.Host("aws-405-captcha")

	t.Run("egress", func(t *testing.T) {
		e, db := blockCrawl(t, w, "aws-405-captcha", bindEgresses)
		waitFor(t, "the host disabled after both egresses were refused", func() bool {
			v := e.Snapshot().Egress
			return v != nil && len(v.Disabled) == 1
		})
		v := e.Snapshot().Egress
		if v.Rotations < 1 || v.Disabled[0].Host != host || !strings.Contains(v.Disabled[0].Why, "AWS WAF") {
			t.Fatalf("rotations %d, disabled %+v", v.Rotations, v.Disabled)
		}
		e.Close()
		rs := refusalsOf(t, db, url)
		egs := map[string]bool{}
		for _, r := range rs {
			if r.Vendor != "AWS WAF" || r.Status != 405 || !strings.Contains(r.Evidence, "x-amzn-waf-action") {
				t.Errorf("refusal %+v", r)
			}
			egs[r.Egress] = true
		}
		if !egs["e1"] || !egs["e2"] {
			t.Fatalf("refusals on %v, want both egresses: %+v", egs, rs)
		}
	})
	t.Run("direct", func(t *testing.T) {
		e, db := blockCrawl(t, w, "aws-405-captcha", nil)
		waitDone(t, e, 30*time.Second)
		st := e.Stats()
		if st.Errors["refused"] != 1 || st.Errors["http_4xx"] != 0 {
			t.Fatalf("errors %v, want the URL refused", st.Errors)
		}
		e.Close()
		rs := refusalsOf(t, db, url)
		if len(rs) != 1 || rs[0].Vendor != "AWS WAF" || rs[0].Egress != "direct" || rs[0].Action != "lane backs off" {
			t.Fatalf("refusals %+v", rs)
		}
	})
}
