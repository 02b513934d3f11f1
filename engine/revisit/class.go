package revisit

import (
	"hash/maphash"
	"net"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/net/publicsuffix"
)

// Page classes (M2, seed 003 table 6 "weborsoc"): social-media pages, and news/policy
// pages split by the kind of domain that serves them.
const (
	ClassSocial = "soc"
	ClassCom    = "web_com"
	ClassNet    = "web_net"
	ClassEdu    = "web_edu"
	ClassGov    = "web_gov"
)

// Classes lists every class, in the order the console shows them.
var Classes = []string{ClassSocial, ClassCom, ClassNet, ClassEdu, ClassGov}

// Classifier tags URLs with their class. Declared sites win; otherwise the public
// suffix decides. The zero value classifies by suffix only.
type Classifier struct {
	// Social holds the hosts or registered domains of declared social sites
	// (site config "social"); their pages and subdomains are ClassSocial.
	Social map[string]bool
	// Declared maps a host or registered domain to a class a site declared for
	// itself, e.g. a .org ministry site declaring web_gov.
	Declared map[string]string
}

// Class returns the class of u: ClassSocial for declared social sites, a declared
// class, else by public suffix (golang.org/x/net/publicsuffix):
//
//	edu, ac, and any suffix with an edu/ac label (edu.cn, ac.uk)    web_edu
//	gov, mil, and any suffix with gov/gob/gouv/go/govt/gv labels    web_gov
//	net, and suffixes with a net label (net.cn)                     web_net
//	everything else (com, org, country codes, IPs, localhost)       web_com
//
// The seed knows only these four web classes, so other suffixes fall into web_com,
// the general news class, rather than a fifth class with no window of its own; a site
// that should be treated otherwise declares its class.
func (c Classifier) Class(u *url.URL) string {
	if u == nil {
		return ClassCom
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if cls, ok := c.lookup(host); ok {
		return cls
	}
	if host == "" {
		return ClassCom
	}
	return suffixClass(host)
}

// suffixClass is the class host's public suffix gives it (an IP address:
// ClassCom). Every page stored and every new link asks for its host's class, and
// hosts repeat, so answers are kept in a small direct-mapped cache: the suffix
// lookup (and its failed IP parse of every name) runs once per host while it stays
// in its slot.
func suffixClass(host string) string {
	slot := &suffixCache[maphash.String(suffixSeed, host)%uint64(len(suffixCache))]
	if e := slot.Load(); e != nil && e.host == host {
		return e.class
	}
	class := ClassCom
	if net.ParseIP(host) == nil {
		class = classBySuffix(host)
	}
	slot.Store(&suffixEntry{host: host, class: class})
	return class
}

// suffixEntry is one host's answer in suffixCache.
type suffixEntry struct{ host, class string }

var (
	suffixCache [4096]atomic.Pointer[suffixEntry]
	suffixSeed  = maphash.MakeSeed()
)

// lookup finds a declaration for host or any parent domain of it.
func (c Classifier) lookup(host string) (string, bool) {
	for h := host; h != ""; {
		if c.Social[h] {
			return ClassSocial, true
		}
		if cls, ok := c.Declared[h]; ok {
			return cls, true
		}
		i := strings.IndexByte(h, '.')
		if i < 0 {
			break
		}
		h = h[i+1:]
	}
	return "", false
}

// classBySuffix maps a host's public suffix to a web class.
func classBySuffix(host string) string {
	suffix, _ := publicsuffix.PublicSuffix(host)
	labels := strings.Split(suffix, ".")
	has := func(names ...string) bool {
		for _, l := range labels {
			for _, n := range names {
				if l == n {
					return true
				}
			}
		}
		return false
	}
	switch {
	case has("edu"), len(labels) > 1 && has("ac"): // .ac alone is Ascension Island
		return ClassEdu
	case has("gov", "mil", "gob", "gouv", "go", "govt", "gv"):
		return ClassGov
	case has("net"):
		return ClassNet
	default:
		return ClassCom
	}
}

// Windows maps a class to its active window (M2/M3): how long after its first fetch a
// page of that class is still worth revisiting. Seed 003 sets each window to the
// class's average update lifetime; a window of 0 means "no limit".
type Windows map[string]time.Duration

// DefaultWindows returns the default windows: social posts go quiet within days,
// news pages within weeks, institutional pages change for months.
func DefaultWindows() Windows {
	return Windows{
		ClassSocial: 3 * 24 * time.Hour,
		ClassCom:    14 * 24 * time.Hour,
		ClassNet:    14 * 24 * time.Hour,
		ClassEdu:    60 * 24 * time.Hour,
		ClassGov:    60 * 24 * time.Hour,
	}
}

// Window returns the window of class; an unknown class gets web_com's.
func (w Windows) Window(class string) time.Duration {
	if d, ok := w[class]; ok {
		return d
	}
	return w[ClassCom]
}

// Active reports whether a page of class first fetched at first is still inside its
// window at now.
func (w Windows) Active(class string, first, now time.Time) bool {
	d := w.Window(class)
	return d <= 0 || now.Sub(first) < d
}
