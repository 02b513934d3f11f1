package sandbox

import (
	"math"
	"time"
)

// webClock relates web time to real time: web time runs Scale× real time and reads
// Epoch when the sandbox starts (one time scale for every web constant).
type webClock struct {
	realStart time.Time
	epoch     time.Time
	scale     float64
}

func (c *webClock) now() time.Time { return c.webAt(time.Now()) }

func (c *webClock) webAt(real time.Time) time.Time {
	return c.epoch.Add(time.Duration(float64(real.Sub(c.realStart)) * c.scale))
}

func (c *webClock) realAt(web time.Time) time.Time {
	return c.realStart.Add(time.Duration(float64(web.Sub(c.epoch)) / c.scale))
}

// realTime maps a web time to real time; a model without a clock reports web times.
func (w *Web) realTime(web time.Time) time.Time {
	if w.clock == nil {
		return web
	}
	return w.clock.realAt(web)
}

// date is web time t as the web writes it in pages, feeds and sitemaps: t itself, or
// its real time under Config.RealDates.
func (w *Web) date(t time.Time) time.Time {
	if w.cfg.RealDates {
		return w.realTime(t)
	}
	return t
}

// realDur is the real duration of a web duration.
func (w *Web) realDur(d time.Duration) time.Duration {
	return time.Duration(float64(d) / w.cfg.Scale)
}

// realSeconds is a web duration as whole real seconds, rounded up, at least 1: the unit
// of Retry-After and DNS TTLs.
func (w *Web) realSeconds(d time.Duration) int {
	s := int(math.Ceil(w.realDur(d).Seconds()))
	if s < 1 {
		s = 1
	}
	return s
}
