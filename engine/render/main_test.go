package render

import (
	"os"
	"testing"

	"github.com/crawlconsole/crawlconsole/engine/enginetest/testmain"
)

// TestMain runs up to 4 of the package's tests at once unless -test.parallel is
// given: each starts its own browser and then mostly waits on it (a page's
// timers, a render's cap, the yield watch, a browser that does not answer). More
// at once than that starts more browsers together than two cores start in time
// with other packages' tests beside them.
func TestMain(m *testing.M) {
	os.Exit(testmain.Run(m, 4))
}
