package page

import "testing"

// A date in the page's text is read as the page's elements cut it: a <time> (or
// any element) ends a word where it ends, even with no space after it ("…13Z" then
// "Text" is a zone and a word, not a word "ZText"), and a block ends a line (a
// paragraph's year is not the first digits of the next paragraph's number, nor is
// the next paragraph's first letter the zone of its time).
func TestMetadataTextDateEndsWithItsElement(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"a <time> with no datetime, text right after it",
			`<p><time>2026-02-02T13:28:13Z</time>Text after it</p>`, "2026-02-02T13:28:13Z"},
		{"a zone abbreviation, a link right after it",
			`<p><span>March 5, 2024 9:05 p.m. EST</span><a href="/a">Share</a></p>`, "2024-03-05T21:05:00-05:00"},
		{"a date line, then a paragraph that starts with a Z",
			`<p>Updated March 5, 2024 10:20:13</p><p>Z-Wave hubs went dark across the valley.</p>`, "2024-03-05T10:20:13"},
		{"a date line, then a paragraph that starts with a number",
			`<p>Published March 5th, 2024</p><p>12 people were hurt when the river rose.</p>`, "2024-03-05"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := metaOf(t, article("", tc.body), "")
			if got := md.Published.String(); got != tc.want || md.Published.From != "text" {
				t.Errorf("published %s from %q, want %s from text", got, md.Published.From, tc.want)
			}
		})
	}
}
