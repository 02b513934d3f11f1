package fake

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/engine/egress"
	"github.com/crawlconsole/crawlconsole/engine/view"
)

// ErrNoRotation is what the rotation controls answer on a crawl built with
// Config.Direct (the engine's words).
var ErrNoRotation = errors.New("no egress rotation: the crawl goes direct (give --egress SPEC)")

// fakeSpecs are the egress specs of the fake account table; the fake keeps only
// their masked form, as the engine's view does.
var fakeSpecs = []string{
	"bind:127.0.0.2",
	"http://crawler:s3cret-pass@127.0.0.1:3128",
	"socks5://127.0.0.4:1080",
	"http://127.0.0.5:8080",
	"socks5://vpn:other-pass@127.0.0.6:1080",
}

// DisableFor is how long the fake keeps a host on the host_disable_list (the
// seed's 2 hours).
const DisableFor = 2 * time.Hour

// buildEgress is the Egress pane's data (M3): the node's list of n egresses (the
// first in use, one cooling after proxy faults), a spare egress of the account
// table, three disabled hosts and two pair bans.
func buildEgress(n int) *view.EgressView {
	v := &view.EgressView{At: Epoch, Node: "local", Current: egressName(0), Rotations: 37, HostsDisabled: 5}
	v.PairBans = []egress.PairBan{
		{Egress: egressName(0), Host: "social-41.sandbox.test", At: Epoch.Add(-5 * time.Minute), Until: Epoch.Add(25 * time.Minute),
			Why: "AWS WAF: header x-amzn-waf-action: captcha"},
		{Egress: egressName(min(1, n-1)), Host: "news-13.sandbox.test", At: Epoch.Add(-23 * time.Minute), Until: Epoch.Add(7 * time.Minute),
			Why: `keyword "verify you are human" in title; main text 41 chars, 0 links; repeated on refetch`},
	}
	for i := range n {
		row := egress.EgressRow{
			Name: egressName(i), Node: "local", OnNode: true, RecentlyUsed: "n", SuccessRate: 1, State: "ready",
		}
		row.Kind, row.Address = maskedSpec(fakeSpecs[i%4])
		switch i {
		case 0:
			row.Current, row.State, row.RecentlyUsed = true, "in use", "y"
			row.StartTime = Epoch.Add(-(2*time.Minute + 11*time.Second))
			row.Requests, row.Refusals = 1234, 12
		case 1:
			row.RecentlyUsed = "y"
			row.StartTime = Epoch.Add(-(9*time.Minute + 40*time.Second))
			row.Requests, row.Refusals, row.Faults = 876, 3, 1
		case 2:
			row.State, row.CoolingUntil = "cooling", Epoch.Add(42*time.Second)
			row.StartTime = Epoch.Add(-31 * time.Minute)
			row.Requests, row.Refusals, row.Faults = 402, 1, 4
		}
		for _, b := range v.PairBans {
			if b.Egress == row.Name {
				row.BannedHosts++
			}
		}
		if row.Requests > 0 {
			row.SuccessRate = float64(row.Requests-row.Refusals-row.Faults) / float64(row.Requests)
		}
		v.Egresses = append(v.Egresses, row)
	}
	spare := egress.EgressRow{Name: "spare-1", RecentlyUsed: "n", SuccessRate: 1, State: "free"}
	spare.Kind, spare.Address = maskedSpec(fakeSpecs[4])
	v.Egresses = append(v.Egresses, spare)
	for _, d := range []struct {
		host      string
		ago, left time.Duration
		why       string
	}{
		{"blog-44.sandbox.test", DisableFor - 4*time.Second, 4 * time.Second, "status 429"},
		{"news-57.sandbox.test", DisableFor - 12*time.Minute - 3*time.Second, 12*time.Minute + 3*time.Second, "Cloudflare: header cf-mitigated: challenge"},
		{"social-41.sandbox.test", 37 * time.Minute, DisableFor - 37*time.Minute, "Jiasule: challenge cookie __jsl_clearance_s"},
	} {
		v.Disabled = append(v.Disabled, egress.DisabledHost{Host: d.host, Since: Epoch.Add(-d.ago),
			Until: Epoch.Add(d.left), TimeLeft: d.left, Why: d.why})
	}
	return v
}

// maskedSpec parses one of the fake's own specs and returns its kind and masked form.
func maskedSpec(spec string) (egress.Kind, string) {
	sp, err := egress.ParseSpec(spec)
	if err != nil {
		panic(err) // the fake's specs are constants
	}
	return sp.Kind, sp.Masked()
}

// tickEgress moves the rotation on by one second: the egress in use serves five
// requests, with a refusal every seventh second. The caller holds mu.
func (c *Control) tickEgress() {
	v := c.snap.Egress
	if v == nil {
		return
	}
	v.At = v.At.Add(time.Second)
	for i := range v.Egresses {
		r := &v.Egresses[i]
		if !r.Current {
			continue
		}
		r.Requests += 5
		if int(v.At.Sub(Epoch)/time.Second)%7 == 0 {
			r.Refusals++
		}
		r.SuccessRate = float64(r.Requests-r.Refusals-r.Faults) / float64(r.Requests)
	}
	for i := range v.Disabled {
		v.Disabled[i].TimeLeft = max(v.Disabled[i].Until.Sub(v.At), 0)
	}
}

func cloneEgress(v *view.EgressView) *view.EgressView {
	return cloned(v, func(cp *view.EgressView) {
		cp.Egresses = slices.Clone(cp.Egresses)
		cp.Disabled = slices.Clone(cp.Disabled)
		cp.PairBans = slices.Clone(cp.PairBans)
	})
}

// egressRow finds an egress of the table by name; the caller holds mu.
func (c *Control) egressRow(name string) int {
	return slices.IndexFunc(c.snap.Egress.Egresses, func(r egress.EgressRow) bool { return r.Name == name })
}

// setLaneEgress moves a lane (and its adjacency group) to egress to; the caller holds mu.
func (c *Control) setLaneEgress(id int, to string) {
	for i := range c.snap.Lanes {
		if c.snap.Lanes[i].ID == id {
			c.snap.Lanes[i].Egress = to
		}
	}
	for i := range c.snap.Groups {
		if c.snap.Groups[i].Lane == id {
			c.snap.Groups[i].Egress = to
		}
	}
}

// RotateLane moves the lane to the next egress of the node's list that is not
// cooling, marking it used now, as the engine's rotation would.
func (c *Control) RotateLane(id int) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, fmt.Sprintf("RotateLane(%d)", id))
	v := c.snap.Egress
	if v == nil {
		return "", ErrNoRotation
	}
	li := slices.IndexFunc(c.snap.Lanes, func(l view.Lane) bool { return l.ID == id })
	if li < 0 {
		return "", fmt.Errorf("no lane %d", id)
	}
	from := c.egressRow(c.snap.Lanes[li].Egress)
	for k := 1; k <= len(v.Egresses); k++ {
		j := (max(from, 0) + k) % len(v.Egresses)
		r := &v.Egresses[j]
		if j == from || !r.OnNode || r.State == "cooling" {
			continue
		}
		r.StartTime, r.RecentlyUsed = v.At, "y"
		v.Rotations++
		c.setLaneEgress(id, r.Name)
		return r.Name, nil
	}
	return "", fmt.Errorf("lane %d: no other egress to rotate to", id)
}

// SetHostDisabled puts host on the host_disable_list for DisableFor (counting the
// tasks its lanes held as deferred) or takes it off.
func (c *Control) SetHostDisabled(host string, disabled bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, fmt.Sprintf("SetHostDisabled(%s,%v)", host, disabled))
	v := c.snap.Egress
	if v == nil {
		return ErrNoRotation
	}
	if host == "" {
		return errors.New("no host given")
	}
	v.Disabled = slices.DeleteFunc(slices.Clone(v.Disabled), func(d egress.DisabledHost) bool { return d.Host == host })
	if !disabled {
		return nil
	}
	v.HostsDisabled++
	v.Disabled = append(v.Disabled, egress.DisabledHost{Host: host, Since: v.At, Until: v.At.Add(DisableFor), TimeLeft: DisableFor})
	slices.SortFunc(v.Disabled, func(a, b egress.DisabledHost) int { return strings.Compare(a.Host, b.Host) })
	for _, g := range c.snap.Groups {
		for _, h := range g.Hosts {
			if h.Host == host {
				c.snap.Totals.Deferred += int64(h.Tasks)
			}
		}
	}
	return nil
}

// FailAddEgress makes AddEgress return f(spec) when f returns an error (a test can
// make the engine's error quote what it was given, to check the console masks it).
func (c *Control) FailAddEgress(f func(spec string) error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.addEgressErr = f
}

// AddEgress parses spec as the engine does and adds the egress to the node's
// list; the call log records only its masked form.
func (c *Control) AddEgress(spec string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := c.snap.Egress
	sp, perr := egress.ParseSpec(spec)
	if perr == nil {
		c.calls = append(c.calls, "AddEgress("+sp.Masked()+")")
	} else {
		c.calls = append(c.calls, "AddEgress(unparsable)")
	}
	if c.addEgressErr != nil {
		if err := c.addEgressErr(spec); err != nil {
			return "", err
		}
	}
	if v == nil {
		return "", ErrNoRotation
	}
	if perr != nil {
		return "", perr
	}
	if sp.Name == "" {
		c.added++
		sp.Name = "e" + strconv.Itoa(len(v.Egresses)+c.added)
	}
	if c.egressRow(sp.Name) >= 0 {
		return "", &egress.SpecError{Name: sp.Name, Masked: sp.Masked(), Reason: "name used twice"}
	}
	v.Egresses = append(v.Egresses, egress.EgressRow{Name: sp.Name, Kind: sp.Kind, Address: sp.Masked(),
		Node: v.Node, OnNode: true, RecentlyUsed: "n", SuccessRate: 1, State: "ready"})
	c.snap.Egresses = append(slices.Clone(c.snap.Egresses), sp.Name)
	return sp.Name, nil
}

// RemoveEgress takes an egress out of the table; its lanes move to the first
// egress left on the node.
func (c *Control) RemoveEgress(name string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = append(c.calls, fmt.Sprintf("RemoveEgress(%s)", name))
	v := c.snap.Egress
	if v == nil {
		return ErrNoRotation
	}
	i := c.egressRow(name)
	if i < 0 {
		return fmt.Errorf("no egress %q", name)
	}
	v.Egresses = slices.Delete(slices.Clone(v.Egresses), i, i+1)
	c.snap.Egresses = slices.DeleteFunc(slices.Clone(c.snap.Egresses), func(e string) bool { return e == name })
	to := ""
	for _, r := range v.Egresses {
		if r.OnNode {
			to = r.Name
			break
		}
	}
	for _, l := range c.snap.Lanes {
		if l.Egress == name {
			c.setLaneEgress(l.ID, to)
		}
	}
	return nil
}

// RetireLane removes a lane, as the engine does when a lane runs dry; a console
// still showing it then asks about a lane that is gone.
func (c *Control) RetireLane(id int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.snap.Lanes = slices.DeleteFunc(slices.Clone(c.snap.Lanes), func(l view.Lane) bool { return l.ID == id })
	c.snap.Groups = slices.DeleteFunc(slices.Clone(c.snap.Groups), func(g view.Group) bool { return g.Lane == id })
	c.snap.LanesBusy = len(c.snap.Lanes)
}
