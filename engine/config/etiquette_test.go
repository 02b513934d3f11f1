package config

import (
	"strings"
	"testing"
	"time"
)

func TestEtiquetteOptionsValidated(t *testing.T) {
	t.Parallel()
	yes := true
	for _, c := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"cache over a day", func(o *Options) { o.Etiquette.RobotsCacheFor = 48 * time.Hour }, "etiquette.robots_cache_for"},
		{"zero retry", func(o *Options) { o.Etiquette.RobotsRetry = 0 }, "etiquette.robots_retry"},
		{"site with a path", func(o *Options) { o.Etiquette.Sites = []EtiquetteSite{{Site: "example.com/x", Robots: &yes}} }, "give a host or domain"},
		{"site without an override", func(o *Options) { o.Etiquette.Sites = []EtiquetteSite{{Site: "example.com"}} }, "overrides nothing"},
		{"site twice", func(o *Options) {
			o.Etiquette.Sites = []EtiquetteSite{{Site: "example.com", Robots: &yes}, {Site: "Example.com.", Robots: &yes}}
		}, "listed twice"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := DefaultOptions()
			c.edit(&o)
			if err := o.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one naming %q", err, c.want)
			}
		})
	}
	o := DefaultOptions()
	o.Etiquette.Sites = []EtiquetteSite{{Site: "example.com", RelNofollow: &yes}, {Site: "news.example.com", PageDirectives: new(bool)}}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if et := o.EtiquetteFor("a.news.example.com"); et.PageDirectives || !et.RelNofollow || !et.Robots {
		t.Fatalf("longest matching site must win: %+v", et)
	}
	if et := o.EtiquetteFor("notexample.com"); !et.PageDirectives {
		t.Fatalf("a suffix that is not a subdomain must not match: %+v", et)
	}
}

// A web that runs k times faster retries an unreachable robots.txt k times sooner,
// and a huge k still leaves a retry that validation accepts.
func TestEtiquetteScaledToAFasterWeb(t *testing.T) {
	t.Parallel()
	o := DefaultOptions()
	def := o.Etiquette.RobotsRetry
	if got := o.Etiquette.Scaled(60).RobotsRetry; got != def/60 {
		t.Fatalf("retry at 60x: %v, want %v", got, def/60)
	}
	o.Etiquette = o.Etiquette.Scaled(1e12)
	if o.Etiquette.RobotsRetry <= 0 {
		t.Fatalf("retry at 1e12x: %v, want positive", o.Etiquette.RobotsRetry)
	}
	if err := o.Validate(); err != nil {
		t.Fatalf("options with a scaled etiquette refused: %v", err)
	}
}
