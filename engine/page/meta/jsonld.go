package meta

import (
	"encoding/json"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine/page/internal/textutil"
)

// JSON-LD (schema.org in <script type="application/ld+json">): the page's own
// statement of its article. A page may hold several blocks, an @graph of nodes, nodes
// nested in others (a WebPage whose mainEntity is the NewsArticle), blocks that
// disagree (a site template's WebSite beside the article) and blocks that are not
// valid JSON (a CMS that leaves a trailing comma or a raw newline in a string). The
// article's node wins over a web page's, which wins over any other; a block that does
// not parse is searched for its keys as text.

// ldFacts is what the page's JSON-LD says of its article.
type ldFacts struct {
	published, publishedKey string
	modified                string
	headline                string
	authors                 []string
	lang                    string
	url                     string
}

// Bounds on the JSON-LD walked.
const (
	maxLDNodes = 4096
	maxLDDepth = 24
)

// ldRank ranks a node's @type: 0 an article, 1 a web page, 2 anything else.
func ldRank(t any) int {
	best := 2
	var one func(s string)
	one = func(s string) {
		s = strings.TrimPrefix(strings.TrimPrefix(s, "http://schema.org/"), "https://schema.org/")
		switch {
		case strings.HasSuffix(s, "Article") || s == "BlogPosting" || s == "LiveBlogPosting" || s == "Report" ||
			s == "SocialMediaPosting" || s == "DiscussionForumPosting" || s == "Review" || s == "Posting":
			best = 0
		case strings.HasSuffix(s, "WebPage") || s == "ItemPage" || s == "VideoObject":
			if best > 1 {
				best = 1
			}
		}
	}
	switch v := t.(type) {
	case string:
		one(v)
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok {
				one(s)
			}
		}
	}
	return best
}

// readJSONLD reads the article's facts from a page's JSON-LD blocks.
func readJSONLD(blocks []string) ldFacts {
	var f ldFacts
	type node struct {
		obj  map[string]any
		rank int
	}
	var nodes []node
	budget := maxLDNodes
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if budget <= 0 || depth > maxLDDepth {
			return
		}
		budget--
		switch x := v.(type) {
		case map[string]any:
			if _, typed := x["@type"]; typed {
				nodes = append(nodes, node{x, ldRank(x["@type"])})
			}
			for k, c := range x {
				if k == "author" || k == "publisher" || k == "creator" {
					continue // a person's or an organisation's own dates are not the article's
				}
				walk(c, depth+1)
			}
		case []any:
			for _, c := range x {
				walk(c, depth+1)
			}
		}
	}
	var broken []string
	for _, b := range blocks {
		var v any
		if err := json.Unmarshal([]byte(b), &v); err != nil {
			broken = append(broken, b)
			continue
		}
		walk(v, 0)
	}
	// Best rank first, document order among equals (a stable pass per rank).
	for rank := 0; rank <= 2; rank++ {
		for _, n := range nodes {
			if n.rank != rank {
				continue
			}
			o := n.obj
			if f.published == "" {
				for _, k := range []string{"datePublished", "dateCreated", "uploadDate"} {
					if s := ldString(o[k]); s != "" {
						f.published, f.publishedKey = s, k
						break
					}
				}
			}
			if f.modified == "" {
				f.modified = ldString(o["dateModified"])
			}
			if f.headline == "" && rank < 2 {
				f.headline = ldString(o["headline"])
				if f.headline == "" && rank == 0 {
					f.headline = ldString(o["name"])
				}
			}
			if len(f.authors) == 0 && rank < 2 {
				f.authors = ldNames(o["author"], 0)
				if len(f.authors) == 0 {
					f.authors = ldNames(o["creator"], 0)
				}
			}
			if f.lang == "" {
				f.lang = ldString(o["inLanguage"])
			}
			if f.url == "" && rank == 0 {
				f.url = ldString(o["url"])
				if f.url == "" {
					if me, ok := o["mainEntityOfPage"].(map[string]any); ok {
						f.url = ldString(me["@id"])
					} else {
						f.url = ldString(o["mainEntityOfPage"])
					}
				}
			}
		}
	}
	for _, b := range broken {
		if f.published == "" {
			if f.published = jsonTextValue(b, "datePublished"); f.published != "" {
				f.publishedKey = "datePublished"
			}
		}
		if f.modified == "" {
			f.modified = jsonTextValue(b, "dateModified")
		}
		if f.headline == "" {
			f.headline = jsonTextValue(b, "headline")
		}
		if f.lang == "" {
			f.lang = jsonTextValue(b, "inLanguage")
		}
	}
	f.headline = textutil.ClipBytes(textutil.CollapseSpace(f.headline), 512)
	return f
}

// ldString is a JSON-LD value as a string: a string, the first of a list, or an
// object's @value (or @id).
func ldString(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(textutil.ClipBytes(x, maxMetaVal))
	case []any:
		if len(x) > 0 {
			return ldString(x[0])
		}
	case map[string]any:
		if s := ldString(x["@value"]); s != "" {
			return s
		}
	}
	return ""
}

// ldNames are the names of an author value: a string, a Person or Organization, or a
// list of them (people first: an organisation counts only when no person is named).
func ldNames(v any, depth int) []string {
	var people, orgs []string
	var add func(v any, depth int)
	add = func(v any, depth int) {
		if depth > 4 || len(people) >= maxAuthors {
			return
		}
		switch x := v.(type) {
		case string:
			people = append(people, x)
		case []any:
			for _, c := range x {
				add(c, depth+1)
			}
		case map[string]any:
			name := ldString(x["name"])
			if name == "" {
				name = strings.TrimSpace(ldString(x["givenName"]) + " " + ldString(x["familyName"]))
			}
			if name == "" {
				return
			}
			if t, _ := x["@type"].(string); strings.Contains(t, "Organization") {
				orgs = append(orgs, name)
			} else {
				people = append(people, name)
			}
		}
	}
	add(v, depth)
	if len(people) == 0 {
		return orgs
	}
	return people
}

// jsonTextValue finds "key": "value" in text that is not valid JSON, for the keys of a
// broken block; the value unescaped as far as it is plain.
func jsonTextValue(b, key string) string {
	i := strings.Index(b, `"`+key+`"`)
	if i < 0 {
		return ""
	}
	rest := strings.TrimLeft(b[i+len(key)+2:], " \t\r\n")
	if !strings.HasPrefix(rest, ":") {
		return ""
	}
	rest = strings.TrimLeft(rest[1:], " \t\r\n")
	if !strings.HasPrefix(rest, `"`) {
		return ""
	}
	rest = rest[1:]
	end := strings.IndexByte(rest, '"')
	if end < 0 || end > maxMetaVal {
		return ""
	}
	var s string
	if err := json.Unmarshal([]byte(`"`+rest[:end]+`"`), &s); err != nil {
		s = rest[:end]
	}
	return strings.TrimSpace(s)
}
