package front

import (
	"fmt"
	"maps"
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

// The Sites pane's reason for a site behind a held host lasts while one of its URLs
// waits there, and goes with the last: settled, or set aside for another reason
// (its own host disabled, its page budget) as the held host's enable brought it
// back. A URL that left the wait gave its site that reason for as long as the crawl
// ran, the held host long enabled.
func TestASitesRobotsReasonGoesWithItsLastURL(t *testing.T) {
	var c Counters
	const a, b, held = "a.example", "b.example", "cdn.example"
	c.Deferral("", "http://a.example/1", a, held)
	c.Deferral("", "http://a.example/2", a, held)
	c.Deferral("robots_unreachable", "http://b.example/1", b, "")
	want := map[string]string{a: held, b: ""}
	if got := c.RobotsWaits(); !maps.Equal(got, want) {
		t.Fatalf("reasons %v, want %v", got, want)
	}
	c.Settled("http://a.example/1")
	if got := c.RobotsWaits(); !maps.Equal(got, want) {
		t.Errorf("one of a's two URLs fetched: reasons %v, want %v (the other still waits)", got, want)
	}
	c.Deferral("", "http://a.example/2", a, "") // back at the enable, deferred for a's own disable
	delete(want, a)
	if got := c.RobotsWaits(); !maps.Equal(got, want) {
		t.Errorf("a's last URL set aside for another reason: reasons %v, want %v", got, want)
	}
	c.Settled("http://b.example/1")
	if got := c.RobotsWaits(); len(got) != 0 {
		t.Errorf("nothing waits: reasons %v", got)
	}
}

// BenchmarkRobotsWaits is the Sites pane's reasons read at each snapshot with a
// backlog of 100,000 URLs waiting behind held hosts, over 20 sites: the read costs
// per site waiting, not per URL.
func BenchmarkRobotsWaits(b *testing.B) {
	var c Counters
	for i := range 100_000 {
		host := fmt.Sprintf("site%d.example", i%20)
		c.Deferral("", fmt.Sprintf("http://%s/%d", host, i), host, "cdn.example")
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(c.RobotsWaits()) != 20 {
			b.Fatal("not 20 sites waiting")
		}
	}
}
