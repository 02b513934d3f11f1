package blockpage

// matcher finds many lower-case patterns in one pass over a text: a table indexed by
// the patterns' first two bytes rules out most positions with one load and leads
// straight to the few patterns to compare, so the cost is one pass whatever the
// number of vendors (a 10 MB body is never scanned past scanMax anyway).
type matcher struct {
	first2 [1 << 16]uint16 // 1 + index into lists; 0: no pattern starts with these two bytes
	lists  [][]pattern
}

// pattern is one marker: a vendor's (vendor >= 0, index into vendors) or a generic
// challenge keyword (vendor = -1).
type pattern struct {
	text   string
	vendor int
}

// maxHits bounds what one scan reports: enough evidence for any verdict, and a
// body stuffed with markers costs no more than one that has a few.
const maxHits = 32

func newMatcher(ps []pattern) *matcher {
	m := &matcher{}
	for _, p := range ps {
		k := uint16(p.text[0])<<8 | uint16(p.text[1])
		if m.first2[k] == 0 {
			m.lists = append(m.lists, nil)
			m.first2[k] = uint16(len(m.lists))
		}
		m.lists[m.first2[k]-1] = append(m.lists[m.first2[k]-1], p)
	}
	return m
}

// find returns the distinct patterns found in lower, in order of first appearance.
func (m *matcher) find(lower []byte) []pattern {
	var hits []pattern
	for i := 0; i+1 < len(lower) && len(hits) < maxHits; i++ {
		j := m.first2[uint16(lower[i])<<8|uint16(lower[i+1])]
		if j == 0 {
			continue
		}
		for _, p := range m.lists[j-1] {
			if len(lower)-i >= len(p.text) && string(lower[i:i+len(p.text)]) == p.text && !found(hits, p.text) {
				hits = append(hits, p)
			}
		}
	}
	return hits
}

func found(hits []pattern, text string) bool {
	for _, h := range hits {
		if h.text == text {
			return true
		}
	}
	return false
}

// genericKeywords are lower-case markers of block, challenge and captcha pages that
// no vendor owns. They are soft evidence: an article about captchas, a login form
// with a 验证码 field or a forum thread about 访问频繁 carries them too.
var genericKeywords = []string{
	"captcha", "verify you are human", "are you a robot", "i'm not a robot", "not a robot",
	"unusual traffic", "access denied", "access to this page has been denied",
	"too many requests", "request blocked", "checking your browser", "attention required",
	"just a moment...", "bot detection", "automated queries", "pardon our interruption",
	"验证", "访问过于频繁", "访问频繁", "请求过于频繁", "拒绝访问", "访问被拒绝", "安全检查", "人机", // zh
	"驗證", "訪問過於頻繁", "拒絕訪問", // zh-Hant
	"アクセスが拒否", "ロボットではありません", // ja
	"비정상적인 트래픽", "접근이 거부", // ko
	"zugriff verweigert", "ungewöhnlicher datenverkehr", // de
	"accès refusé", "trafic inhabituel", // fr
	"acceso denegado", "tráfico inusual", // es
	"доступ запрещен", "доступ запрещён", "необычный трафик", // ru
	// captcha widgets: login and comment forms embed them too
	"g-recaptcha", "h-captcha", "recaptcha/api.js", "challenges.cloudflare.com/turnstile",
}

// bodyMatcher holds every vendor marker and every generic keyword.
var bodyMatcher = func() *matcher {
	var ps []pattern
	for i, v := range vendors {
		for _, mk := range v.Markers {
			ps = append(ps, pattern{mk, i})
		}
	}
	for _, kw := range genericKeywords {
		ps = append(ps, pattern{kw, -1})
	}
	return newMatcher(ps)
}()
