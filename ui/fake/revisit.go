package fake

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/view"
)

// buildRevisit is the Revisit pane's data (M2): an hour into a crawl with some
// pages refetched, a due queue of 50 pages (a few overdue), the class windows and
// the interval histogram.
func buildRevisit() *view.RevisitView {
	v := &view.RevisitView{
		Enabled: true, Policy: "estimator", Threshold: 5, Every: time.Minute,
		LastTick: Epoch.Add(-12 * time.Second), Ticks: 62,
		Tracked: 48213, Queued: 34,
		Refetches: 12345, Changes: 1502, NotModified: 4210, Unknown: 37, Requeued: 12420,
		FirstPlanned: 9120, FirstProbed: 288,
	}
	classes := []string{"web_com", "soc", "web_net", "web_gov", "web_edu"}
	for i := range 50 {
		d := view.RevisitDue{
			URL:      fmt.Sprintf("http://%s/articles/%d/page-%d.html", hostName(i%9), 2000+i*13, i),
			Class:    classes[i%3],
			T:        time.Duration(3600+i*5417) * time.Second,
			X:        1 + (i*7)%9,
			Next:     Epoch.Add(time.Duration(i*97-300) * time.Second),
			Distance: (i * 11) % 23,
			Fetches:  2 + (i*3)%17,
		}
		if i%10 == 9 {
			d.Class = classes[3+(i/10)%2]
		}
		// The change evidence: the last change's distance and why it counted.
		d.ChangeDistance = -1
		switch i % 4 {
		case 0:
			d.ChangeDistance, d.ChangeReason, d.LastReason = 2+i%5, "main text edited", "main text edited"
		case 1:
			d.ChangeDistance, d.ChangeReason = 9, "headline changed"
			d.LastReason, d.BoilerplateOnly = "only boilerplate moved", true
		case 2:
			d.ChangeDistance, d.ChangeReason, d.Fallback = 14, "simhash", true
		}
		if i%8 == 5 {
			d.Distance, d.Fetches = -1, 1 // fetched once: nothing compared yet
			d.ChangeDistance, d.ChangeReason, d.BoilerplateOnly = -1, "", false
		}
		v.Due = append(v.Due, d)
	}
	v.Windows = []view.ClassWindow{
		{Class: "soc", Window: 3 * 24 * time.Hour, Pages: 15120},
		{Class: "web_com", Window: 14 * 24 * time.Hour, Pages: 20544},
		{Class: "web_net", Window: 14 * 24 * time.Hour, Pages: 9870},
		{Class: "web_edu", Window: 60 * 24 * time.Hour, Pages: 1433},
		{Class: "web_gov", Window: 0, Pages: 1246},
	}
	bounds := []time.Duration{time.Minute, 10 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour}
	pages := []int64{12, 340, 1203, 5102, 2001, 88, 3}
	lo := time.Duration(0)
	for i, n := range pages {
		b := view.IntervalBucket{Min: lo, Pages: n}
		if i < len(bounds) {
			b.Max, lo = bounds[i], bounds[i]
		}
		v.Intervals = append(v.Intervals, b)
	}
	// Class plans: social pages planned for age at a higher budget, the rest balanced.
	v.Plans = []view.ClassPlan{
		{Class: "soc", Objective: "age", Budget: 1, Pages: 15002, Fresh: 0.38, Age: 3*time.Hour + 12*time.Minute, Behind: 0},
		{Class: "web_com", Objective: "balanced", Budget: 0.1, Pages: 20311, Fresh: 0.47, Age: 2*24*time.Hour + 5*time.Hour, Behind: 312},
		{Class: "web_net", Objective: "balanced", Budget: 0.1, Pages: 9702, Fresh: 0.52, Age: 30 * time.Hour, Behind: 41},
		{Class: "web_edu", Objective: "balanced", Budget: 0.1},
		{Class: "web_gov", Objective: "freshness", Budget: 0.05, Pages: 1240, Fresh: 0.81, Age: 9 * 24 * time.Hour, Behind: 17},
	}
	for i := range 25 {
		v.Behind = append(v.Behind, view.RevisitBehind{URL: fmt.Sprintf("http://%s/live/%d.html", hostName(i%9), i),
			Class: classes[i%2], Rate: 4 + float64(i*7%40), Freq: 0.1 + float64(i%3)*0.05})
	}
	return v
}

// tickRevisit moves revisits on by one second: three refetches, a change every
// third second. The caller holds mu.
func (c *Control) tickRevisit() {
	v := c.snap.Revisit
	if v == nil {
		return
	}
	v.Refetches += 3
	if c.snap.At.Sub(Epoch)/time.Second%3 == 0 {
		v.Changes++
	}
}

func cloneRevisit(v *view.RevisitView) *view.RevisitView {
	return cloned(v, func(cp *view.RevisitView) {
		cp.Due = slices.Clone(cp.Due)
		cp.Windows = slices.Clone(cp.Windows)
		cp.Intervals = slices.Clone(cp.Intervals)
		cp.Plans = slices.Clone(cp.Plans)
		cp.Behind = slices.Clone(cp.Behind)
	})
}

// ErrNoRevisit is RevisitNow's answer on a crawl built with Config.NoRevisit.
var ErrNoRevisit = errors.New("revisit now: this crawl keeps no revisit state")

// RevisitNow queues a page of the due queue for a refetch at once, as the engine
// does; other URLs fail with the engine's reasons.
func (c *Control) RevisitNow(raw string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, fmt.Sprintf("RevisitNow(%s)", raw))
	if raw == "" {
		return errors.New("no URL given")
	}
	v := c.snap.Revisit
	if v == nil {
		return ErrNoRevisit
	}
	if u, err := url.Parse(raw); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("revisit now: %q: not an http(s) URL", raw)
	}
	i := slices.IndexFunc(v.Due, func(d view.RevisitDue) bool { return d.URL == raw })
	if i < 0 {
		return fmt.Errorf("revisit now: %s is not in this crawl", raw)
	}
	v.Due = slices.Delete(slices.Clone(v.Due), i, i+1)
	v.Queued++
	v.Requeued++
	return nil
}
