package sandbox

import (
	"strconv"
	"strings"
)

// Site names are made up but carry real TLDs, so the public suffix list classifies them
// the way M2/M3 need (web_com, web_net, web_edu, web_gov by TLD) and "same host" differs
// from "same registered domain" (every site has www plus section subdomains). Social
// sites are declared "soc" in the site list the sandbox prints.

var newsFirst = []string{
	"harbor", "civic", "summit", "prairie", "granite", "meridian", "lantern", "beacon",
	"river", "coastal", "northern", "metro", "valley", "capital", "pioneer", "liberty",
	"evergreen", "highland", "iron", "silver", "cedar", "maple", "orchard", "canyon",
	"delta", "frontier", "keystone", "lakeside", "midland", "ocean", "redwood", "sterling",
	"willow", "copper", "aurora", "bayside", "crescent", "eastern", "golden", "hillcrest",
}

var newsSecond = []string{
	"times", "ledger", "herald", "gazette", "post", "tribune", "courier", "journal",
	"chronicle", "dispatch", "review", "observer", "bulletin", "record", "sentinel",
	"monitor", "register", "digest", "report", "wire",
}

var eduSecond = []string{"university", "college", "institute", "academy", "polytechnic", "school"}

var govSecond = []string{"ledger", "council", "registry", "office", "board", "authority", "commission", "bureau"}

var socialFirst = []string{
	"chatterbox", "buzz", "circle", "loop", "hive", "echo", "pulse", "chirp", "yak",
	"flock", "murmur", "ripple", "huddle", "parlor", "gossip", "banter", "natter", "tattle",
}

var socialSecond = []string{"social", "hub", "space", "net", "town", "square", "club"}

var newsSections = []string{"news", "world", "sports", "tech", "culture", "business",
	"science", "opinion", "local", "health", "travel", "politics"}
var eduSections = []string{"research", "admissions", "library", "alumni", "events",
	"news", "faculty", "students", "sports", "press", "arts", "labs"}
var govSections = []string{"services", "notices", "press", "data", "council", "permits",
	"health", "transport", "courts", "planning", "parks", "records"}
var socialSections = []string{"m", "people", "groups", "live", "pics", "forum",
	"events", "video", "blogs", "market", "jobs", "chat"}

// deadPrefixes name hosts that exist in links but not in DNS.
var deadPrefixes = []string{"old", "legacy", "beta", "static2", "archive", "mirror",
	"cdn-old", "staging", "preview", "wap"}

// keywordPool holds the topic words sites draw their keywords from (ASCII so that they
// fit search URLs unescaped).
var keywordPool = []string{
	"election", "budget", "drought", "vaccine", "housing", "transit", "tariff", "flood",
	"wildfire", "pension", "refinery", "harbor", "strike", "census", "broadband", "fishery",
	"tourism", "railway", "hospital", "lithium", "festival", "mining", "ferry", "museum",
	"curriculum", "tuition", "zoning", "recycling", "solar", "pipeline", "airport", "bridge",
	"orchestra", "marathon", "earthquake", "heatwave", "startup", "blockchain", "satellite", "robotics",
}

// siteClass returns the M2/M3 class of a TLD, or "soc" for social sites.
func siteClass(social bool, tld string) string {
	if social {
		return "soc"
	}
	return "web_" + tld
}

// siteNamer hands out unique site domains.
type siteNamer struct {
	used map[string]bool
}

func (n *siteNamer) unique(base, tld string) string {
	name := base + "." + tld
	for i := 2; n.used[name]; i++ {
		name = base + strconv.Itoa(i) + "." + tld
	}
	n.used[name] = true
	return name
}

// title turns "harbor-times" into "Harbor Times".
func title(base string) string {
	parts := strings.Split(base, "-")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, " ")
}
