// Package patience holds how long the tests wait before a wait fails them, apart
// from enginetest: a test that waits but starts no crawl (the console's) imports
// it without linking the engine and the SQLite driver.
package patience

import "time"

// Wait is how long a wait lasts before it fails the test: long enough for a
// two-core box running the whole suite beside other work (at a load of 25 a 400-page
// crawl that takes 8 s idle took over 90 s), so that it never decides a test; a test
// that truly hangs still ends well inside go test's 10-minute timeout.
const Wait = 4 * time.Minute

// Crawl is how long a whole crawl of a test web may take before the test fails
// (the sandbox webs of these tests take seconds on an idle box).
const Crawl = 6 * time.Minute
