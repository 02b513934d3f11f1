package blockpage_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/blockpage"
	"github.com/crawlconsole/crawlconsole/sandbox"
)

// hostOf names an answer's host after its place in the corpus, as sandbox.BlockWeb
// does: an answer's name may hold a keyword ("captcha") that no real host has.
func hostOf(a sandbox.BlockAnswer) string {
	corpus, _ := sandbox.BlockCorpus()
	for i := range corpus {
		if corpus[i].Name == a.Name {
			return "a" + strconv.Itoa(i) + ".blocks.test"
		}
	}
	return "unknown.blocks.test"
}

func answerOf(a sandbox.BlockAnswer) blockpage.Answer {
	return blockpage.Answer{URL: "http://" + hostOf(a) + "/answer", Host: hostOf(a),
		Status: a.Status, Header: a.Header(), Body: []byte(a.Body), BodyLen: int64(len(a.Body)), Links: -1}
}

// withHistory is a host history where every corpus host served 10 pages of its
// usual template (26 links, ~4 KiB, as sandbox.BlockWeb serves them) before the answer.
func withHistory(corpus []sandbox.BlockAnswer) *blockpage.Hosts {
	h := blockpage.NewHosts()
	for _, a := range corpus {
		for range 10 {
			h.Learn(hostOf(a), 4000, 26)
		}
	}
	return h
}

// TestVendorAnswersAreRefusals: every vendor's block and challenge answer in the
// corpus is a refusal, named after its vendor, with and without host history.
func TestVendorAnswersAreRefusals(t *testing.T) {
	corpus, err := sandbox.BlockCorpus()
	if err != nil {
		t.Fatal(err)
	}
	vendors := map[string]string{}
	for _, s := range blockpage.Vendors() {
		vendors[s.Name] = s.Label
	}
	for _, hist := range []bool{false, true} {
		var hosts *blockpage.Hosts
		if hist {
			hosts = withHistory(corpus)
		}
		for _, a := range corpus {
			if !a.Block {
				continue
			}
			t.Run(map[bool]string{false: "fresh/", true: "history/"}[hist]+a.Name, func(t *testing.T) {
				v := blockpage.Judge(answerOf(a), hosts)
				if !v.Refusal() {
					t.Fatalf("%s (%d) not a refusal: %v", a.Name, a.Status, v)
				}
				if a.Vendor != "" && v.Vendor != vendors[a.Vendor] {
					t.Errorf("%s: vendor %q, want %q (%v)", a.Name, v.Vendor, vendors[a.Vendor], v)
				}
				if len(v.Evidence) == 0 {
					t.Errorf("%s: no evidence", a.Name)
				}
			})
		}
	}
}

// TestLookalikesAreNotRefusals: articles about captchas, login pages with a 验证码
// field, short notices, pages behind a vendor: none is a refusal, with or without
// host history.
func TestLookalikesAreNotRefusals(t *testing.T) {
	corpus, err := sandbox.BlockCorpus()
	if err != nil {
		t.Fatal(err)
	}
	for _, hist := range []bool{false, true} {
		var hosts *blockpage.Hosts
		if hist {
			hosts = withHistory(corpus)
		}
		for _, a := range corpus {
			if a.Block {
				continue
			}
			t.Run(map[bool]string{false: "fresh/", true: "history/"}[hist]+a.Name, func(t *testing.T) {
				if v := blockpage.Judge(answerOf(a), hosts); v.Refusal() {
					t.Fatalf("%s (%d) judged a %v refusal: %v", a.Name, a.Status, v.Strength, v)
				}
			})
		}
	}
}

// TestCorpusSize: the corpus is large enough to judge by: at least 60 vendor
// answers over every vendor named, and 40 look-alikes, each with its source.
func TestCorpusSize(t *testing.T) {
	corpus, err := sandbox.BlockCorpus()
	if err != nil {
		t.Fatal(err)
	}
	blocks, look := 0, 0
	seen := map[string]bool{}
	for _, a := range corpus {
		if strings.TrimSpace(a.Source) == "" {
			t.Errorf("%s: no source", a.Name)
		}
		if a.Block {
			blocks++
			seen[a.Vendor] = true
		} else {
			look++
		}
	}
	if blocks < 60 || look < 40 {
		t.Fatalf("corpus: %d vendor answers, %d look-alikes; want ≥ 60 and ≥ 40", blocks, look)
	}
	for _, v := range []string{"cloudflare", "akamai", "imperva", "datadome", "perimeterx", "aws-waf", "sucuri", "f5",
		"kasada", "google", "aliyun", "tencent", "baidu", "weibo", "bytedance", "jiasule", "chuangyu", "safedog"} {
		if !seen[v] {
			t.Errorf("no corpus answer of vendor %s", v)
		}
	}
}

// TestBlockHeadersAloneAreRefusals: a vendor's block header is hard evidence by
// itself, on a 200 with an ordinary page, named after the vendor with the header
// in the evidence.
func TestBlockHeadersAloneAreRefusals(t *testing.T) {
	body := []byte("<html><head><title>City news</title></head><body>" +
		strings.Repeat(`<p>The council met on Tuesday to discuss the budget. <a href="/x">more</a></p>`, 30) + "</body></html>")
	n := 0
	for _, s := range blockpage.Vendors() {
		for name, val := range s.BlockHeaders {
			n++
			h := http.Header{"Content-Type": {"text/html"}}
			h.Set(name, "Value "+strings.ToUpper(val)+" seen")
			a := blockpage.Answer{URL: "http://news.test/a", Host: "news.test", Status: 200, Header: h, Body: body, BodyLen: int64(len(body)), Links: 30}
			v := blockpage.Judge(a, nil)
			if !v.Refusal() || v.Vendor != s.Label || len(v.Evidence) == 0 || !strings.HasPrefix(v.Evidence[0], "header "+name+": ") {
				t.Errorf("%s: header %s alone judged %+v, want a refusal by %s with the header as evidence", s.Name, name, v, s.Label)
			}
			h.Set(name, "unrelated")
			if v := blockpage.Judge(a, nil); val != "" && v.Refusal() {
				t.Errorf("%s: header %s without %q judged a refusal: %+v", s.Name, name, val, v)
			}
		}
	}
	if n < 5 {
		t.Fatalf("only %d block headers in the table", n)
	}
}
