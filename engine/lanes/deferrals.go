package lanes

import "github.com/crawlconsole/crawlconsole/engine/lanes/internal/deferral"

// Deferrals are the tasks set aside until a time and not yet written to the front
// (deferral.Deferrals).
type Deferrals = deferral.Deferrals

// Deferred is one task set aside until a time (deferral.Deferred).
type Deferred = deferral.Deferred
