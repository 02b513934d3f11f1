package main

import (
	"bytes"
	"context"
	"math"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/crawlconsole/crawlconsole/sandbox"
)

// The baseline of `bench blocks`: the two classifiers the engine had before its one
// refusal classifier, kept here verbatim in substance (engine/egress/classify.go and lane.go's
// refused() at commit 4e2cc54) and applied to the same corpus answers. The egress
// route used SiteRefusal plus the per-host size-outlier rule; the direct route used
// SiteRefusal with 503 never a refusal.

var oldChallengeKeywords = []string{
	"captcha", "verify you are human", "are you a robot", "i'm not a robot", "not a robot",
	"unusual traffic", "access denied", "access to this page has been denied",
	"too many requests", "request blocked", "checking your browser", "attention required",
	"cf-chl", "just a moment...", "bot detection",
	"验证", "访问过于频繁", "访问频繁", "请求过于频繁", "拒绝访问", "访问被拒绝", "安全检查",
	"驗證", "訪問過於頻繁", "拒絕訪問",
	"アクセスが拒否", "ロボットではありません",
	"비정상적인 트래픽", "접근이 거부",
	"zugriff verweigert", "ungewöhnlicher datenverkehr",
	"accès refusé", "trafic inhabituel",
	"acceso denegado", "tráfico inusual",
	"доступ запрещен", "доступ запрещён", "необычный трафик",
}

var oldChallengeLocations = []string{"captcha", "challenge", "/sorry", "verify", "blocked", "validate"}

// oldSiteRefusal is the old egress.SiteRefusal on the first 8 KiB of the body.
func oldSiteRefusal(status int, h http.Header, body []byte) string {
	bodyLen := int64(len(body))
	if len(body) > 8<<10 {
		body = body[:8<<10]
	}
	switch s := status; {
	case s == http.StatusForbidden, s == http.StatusTooManyRequests:
		return "status " + strconv.Itoa(s)
	case s == http.StatusServiceUnavailable && h.Get("Retry-After") != "":
		return "status 503 with Retry-After"
	case s == http.StatusServiceUnavailable || s == http.StatusOK:
		text := body
		if bodyLen > 32<<10 {
			text = oldTitle(body)
		}
		lower := bytes.ToLower(text)
		for _, kw := range oldChallengeKeywords {
			if bytes.Contains(lower, []byte(kw)) {
				return "challenge page: " + kw
			}
		}
	case s >= 300 && s < 400 && s != http.StatusNotModified:
		loc := strings.ToLower(h.Get("Location"))
		for _, kw := range oldChallengeLocations {
			if loc != "" && strings.Contains(loc, kw) {
				return "redirect to a challenge: " + kw
			}
		}
	}
	return ""
}

func oldTitle(body []byte) []byte {
	lower := bytes.ToLower(body)
	i := bytes.Index(lower, []byte("<title"))
	if i < 0 {
		return nil
	}
	j := bytes.IndexByte(lower[i:], '>')
	if j < 0 {
		return nil
	}
	start := i + j + 1
	end := bytes.Index(lower[start:], []byte("</title"))
	if end < 0 {
		return nil
	}
	return body[start : start+end]
}

// oldSizeOutlier is the old size rule for a host whose history is n pages of
// `usual` bytes: at least 10 samples, and the body both 4 robust sigmas and 8 times
// below the median (in log space).
func oldSizeOutlier(size int, usual []int) bool {
	if len(usual) < 10 {
		return false
	}
	vals := make([]float64, len(usual))
	for i, u := range usual {
		vals[i] = math.Log1p(float64(u))
	}
	med := oldMedian(slices.Clone(vals))
	for i, v := range vals {
		vals[i] = math.Abs(v - med)
	}
	sd := 1.4826 * oldMedian(vals)
	return math.Log1p(float64(size)) < med-math.Max(4*sd, math.Log(8))
}

func oldMedian(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// baselineRefused is the old verdict on one corpus answer: egress route or direct,
// with or without the host's history (usual: its pages' sizes).
func baselineRefused(a sandbox.BlockAnswer, direct bool, usual []int) bool {
	h := a.Header()
	body := []byte(a.Body)
	if direct {
		return a.Status != http.StatusServiceUnavailable && oldSiteRefusal(a.Status, h, body) != ""
	}
	if oldSiteRefusal(a.Status, h, body) != "" {
		return true
	}
	htmlish := strings.Contains(strings.ToLower(h.Get("Content-Type")), "html") ||
		(h.Get("Content-Type") == "" && bytes.Contains(bytes.ToLower(body), []byte("<html")))
	return a.Status == http.StatusOK && htmlish && oldSizeOutlier(len(body), usual)
}

// loopbackResolver resolves every name to 127.0.0.1, where sandbox.BlockWeb and
// sandbox.RealWeb answer for every host.
type loopbackResolver struct{}

func (loopbackResolver) LookupAddrs(context.Context, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}
