package front

import (
	"slices"
	"testing"
)

// The end-of-crawl summary's examples of a kind are different URLs: a URL counted
// again under its kind (deferred again while its robots.txt stays unreachable) is
// not named twice, and the next URL still gets its place.
func TestExamplesNameDifferentURLs(t *testing.T) {
	var c Counters
	for _, u := range []string{"http://a/1", "http://a/1", "http://a/1", "http://a/2"} {
		c.Example("robots_unreachable", u)
	}
	if got, want := c.ExampleURLs()["robots_unreachable"], []string{"http://a/1", "http://a/2"}; !slices.Equal(got, want) {
		t.Errorf("examples %q, want %q", got, want)
	}
}
