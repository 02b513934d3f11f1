package commands

import (
	"testing"

	"github.com/crawlconsole/crawlconsole/ui/fake"
	"github.com/crawlconsole/crawlconsole/ui/pane"
)

// The lane keys answer the same in the Lanes and the Groups pane: e and x are
// refused to a viewer before anything else, a key with no row selected says so, H
// and x on a lane with no host say that, and other keys are not theirs.
func TestLaneKeyRefusesBeforeItActs(t *testing.T) {
	c := pane.NewCommon(fake.New(fake.Config{}))
	c.Keys = pane.DefaultKeyMap()
	hostless := &LaneTarget{Lane: 3, Egress: "egress-a"}
	for _, tc := range []struct {
		name     string
		readOnly bool
		key      string
		target   *LaneTarget
		want     string
	}{
		{"viewer rotates", true, "e", nil, pane.ReadOnlyText},
		{"viewer disables a host", true, "x", hostless, pane.ReadOnlyText},
		{"nothing selected", false, "e", nil, "no group selected"},
		{"pause with nothing selected", false, " ", nil, "no group selected"},
		{"pause the host of a lane with none", false, "H", hostless, "lane 3 holds no host"},
		{"disable the host of a lane with none", false, "x", hostless, "lane 3 holds no host"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.ReadOnly = tc.readOnly
			cmd, ok := LaneKey(c, tc.key, tc.target, "no group selected", nil, nil)
			if !ok || cmd == nil {
				t.Fatalf("key %q was not taken as a lane key", tc.key)
			}
			msg, isStatus := cmd().(pane.StatusMsg)
			if !isStatus || msg.Text != tc.want || !msg.Err {
				t.Errorf("key %q says %+v, want the error %q", tc.key, msg, tc.want)
			}
		})
	}
	c.ReadOnly = false
	if _, ok := LaneKey(c, "enter", hostless, "no group selected", nil, nil); ok {
		t.Error("enter was taken as a lane key")
	}
}
