package sandbox

import (
	"context"
	"fmt"
	"io"
)

// RunCommand implements `crawlconsole sandbox`: it starts the sandbox web, prints one
// JSON line describing it, and runs until ctx is cancelled (SIGINT/SIGTERM).
func RunCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "crawlconsole sandbox: not built yet")
	return 1
}
