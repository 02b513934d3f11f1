package steer

import "testing"

func TestQueuedNoteSaysWhatWasQueuedAlready(t *testing.T) {
	t.Parallel()
	if got := queuedNote(0, 1, "entry/search"); got != "0 entry/search URLs queued (1 already in the queue or being fetched)" {
		t.Errorf("got %q", got)
	}
	if got := queuedNote(5, 5, "search"); got != "5 search URLs queued" {
		t.Errorf("got %q", got)
	}
}
