package engine

import (
	"context"
	"fmt"
	"net"
	"net/http"
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
	o := testDefaults()
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

func refusalsOf(t *testing.T, db, url string) (rs []store.Refusal) {
	t.Helper()
	withStore(t, db, func(st *store.Store) {
		var err error
		if rs, err = st.Refusals(url); err != nil {
			t.Fatal(err)
		}
	})
	return rs
}

var bindEgresses = []string{"e1=bind:127.0.0.2", "e2=bind:127.0.0.3"}

// TestArticleMentioningCaptchaIsStored: on a host whose usual pages the crawl has
// seen, a news brief and a login page that mention 验证码 are pages, stored, on both
// routes; nothing is refused and the host stays enabled (a rule that took any page under
// 32 KiB with 验证 in it for a ban would disable the site for 2 h).
func TestArticleMentioningCaptchaIsStored(t *testing.T) {
	t.Parallel()
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
// evidence is in the log and in the store for `show URL` (taken for an ordinary
// http_4xx failure, a 405 would never rotate).
func TestAWSWAF405RotatesOnBothRoutes(t *testing.T) {
	t.Parallel()
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

// TestSoftRefusalOfOneURLPunishesNoHost: a page that reads like a block to every
// client (an "e-mail verified" notice: 验证 in its title, one line, one link)
// repeats on its refetch, yet condemns only itself: the URL is set aside, the host
// keeps its egresses. A captcha the site serves on every URL is corroborated by the
// second URL and bans the (egress, host) pair at once.
func TestSoftRefusalOfOneURLPunishesNoHost(t *testing.T) {
	t.Parallel()
	verified := `<html><head><title>邮箱验证</title></head><body><h1>邮箱验证成功！</h1><a href="/">返回首页</a></body></html>`
	captcha := `<html><head><title>Verify you are human</title></head><body><p>Please complete the captcha.</p></body></html>`
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch {
		case r.URL.Path == "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		case strings.HasPrefix(r.Host, "shop."):
			fmt.Fprint(w, captcha)
		case r.URL.Path == "/verified":
			fmt.Fprint(w, verified)
		default:
			fmt.Fprint(w, `<html><title>News</title><body><p>An ordinary page.</p><a href="/verified">verify</a></body></html>`)
		}
	})}
	go srv.Serve(ln)
	defer srv.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	o := testDefaults()
	o.Seeds = []string{fmt.Sprintf("http://news.test:%d/", port)}
	for i := range 3 {
		o.Seeds = append(o.Seeds, fmt.Sprintf("http://shop.test:%d/item/%d", port, i))
	}
	o.DB = filepath.Join(t.TempDir(), "crawl.db")
	o.AllowPrivate = []string{"127.0.0.0/8"}
	o.Resolver = loopResolver{}
	o.Lanes.Max = 2
	o.Lanes.DelayMin, o.Lanes.DelayMax = time.Millisecond, 2*time.Millisecond
	o.HostRate = 0
	o.Egress = bindEgresses
	o.Rotation.PerNode = 0
	e := startEngine(t, o)
	deadline := time.Now().Add(patience)
	for {
		v := e.Snapshot().Egress
		setAside := false
		for _, ev := range e.EventsSince(0, 1000) {
			setAside = setAside || strings.Contains(ev.Msg, "/verified via") && strings.Contains(ev.Msg, "set aside")
		}
		if v != nil && len(v.PairBans) > 0 && setAside {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the verified page not judged or the shop's egresses not banned: stats %+v, egress %+v", e.Stats(), v)
		}
		time.Sleep(5 * time.Millisecond)
	}
	v := e.Snapshot().Egress
	for _, d := range v.Disabled {
		if d.Host == "news.test" {
			t.Fatalf("news.test disabled by one page: %+v", d)
		}
	}
	for _, pb := range v.PairBans {
		if pb.Host == "news.test" {
			t.Fatalf("news.test pair-banned by one page: %+v", pb)
		}
	}
	shop := false
	for _, pb := range v.PairBans {
		shop = shop || pb.Host == "shop.test" && strings.Contains(pb.Why, "as http://shop.test")
	}
	if !shop {
		t.Fatalf("shop.test not pair-banned on a corroborated captcha: %+v", v.PairBans)
	}
	e.Close()
	rs := refusalsOf(t, o.DB, fmt.Sprintf("http://news.test:%d/verified", port))
	if len(rs) != 1 || !strings.Contains(rs[0].Action, "set aside") {
		t.Fatalf("refusals of the verified page: %+v", rs)
	}
}
