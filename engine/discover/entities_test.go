package discover

import (
	"slices"
	"testing"
)

// An HTML named entity that XML does not define (&eacute;, &nbsp;), written in a
// feed's or sitemap's URL by a template that escapes as HTML, is the character it
// names, as browsers and feed readers take it: the page is /café/menu, not a path
// holding "&eacute;".
func TestHTMLEntityInAURLIsItsCharacter(t *testing.T) {
	for _, c := range []struct{ name, url, body string }{
		{"sitemap", "http://a.test/sitemap.xml", `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://a.test/caf&eacute;/menu</loc></url>
<url><loc>http://a.test/a&amp;b</loc></url></urlset>`},
		{"rss", "http://a.test/feed.xml", `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>t</title><item><link>http://a.test/caf&eacute;/menu</link></item>
<item><link>http://a.test/a&amp;b</link></item></channel></rss>`},
		{"atom", "http://a.test/atom.xml", `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><entry><link href="http://a.test/caf&eacute;/menu"/></entry>
<entry><link href="http://a.test/a&amp;b"/></entry></feed>`},
	} {
		doc, err := ParseFrom([]byte(c.body), Source{URL: c.url}, Limits{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want := []string{"http://a.test/caf%C3%A9/menu", "http://a.test/a&b"}
		if got := urlsOf(doc); !slices.Equal(got, want) {
			t.Errorf("%s: URLs %q, want %q", c.name, got, want)
		}
	}
}
