// Package cli is crawlconsole's command line: it parses flags and config, then drives
// the engine, the sandbox, the store and the console through their public APIs.
package cli

import (
	"context"
	"fmt"
	"io"
	"os/signal"
	"syscall"

	"github.com/crawlconsole/crawlconsole/sandbox"
	"github.com/crawlconsole/crawlconsole/ui/cli/clikit"
	"github.com/crawlconsole/crawlconsole/ui/cli/report"
)

// ExitUsage is the exit status for bad flags, config or arguments.
const ExitUsage = clikit.ExitUsage

// ExitStoreFailed is the exit status of a crawl that stopped itself because its store
// could not commit (disk full, I/O error): the message on stderr says what to do.
const ExitStoreFailed = 3

// ExitNothingFetched is the exit status of a crawl that ended without fetching a
// page while URLs failed or were skipped (every seed refused, say): stderr says
// which kinds and, when there is one, the fix.
const ExitNothingFetched = 5

const usage = `crawlconsole — a polite, fast web crawler steered from a terminal

Usage:
  crawlconsole demo    [flags]   crawl the built-in sandbox web with the console
  crawlconsole crawl   [URL...]  crawl the given seeds
  crawlconsole sandbox [flags]   run the synthetic sandbox web on loopback
  crawlconsole stats   --db PATH show what a crawl database holds
  crawlconsole export  --db PATH --format warc|jsonl --out DIR|-   take the crawl out
  crawlconsole show    --db PATH URL   what the crawl knows of one URL
  crawlconsole serve   [flags]   serve the console over SSH
  crawlconsole master  [URL...]  run a distributed crawl's master (frontier, store, console)
  crawlconsole worker  --join URL --name NAME   fetch for a master
  crawlconsole console --attach URL   attach the console to a running master or --operator crawl
  crawlconsole ctl --attach URL COMMAND...   steer a running crawl or master from a shell

Run "crawlconsole COMMAND --help" for a command's flags.
`

// Main runs the command line with args (without the program name) and returns the
// process exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return ExitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	switch args[0] {
	case "-h", "--help", "help":
		if args[0] == "help" && len(args) > 1 {
			return Main([]string{args[1], "--help"}, stdout, stderr) // as git and go do: help COMMAND
		}
		fmt.Fprint(stdout, usage)
		return 0
	case "sandbox":
		return sandbox.RunCommand(ctx, args[1:], stdout, stderr)
	case "demo":
		return runDemo(ctx, args[1:], stdout, stderr)
	case "crawl":
		return runCrawl(ctx, args[1:], stdout, stderr)
	case "serve":
		return runServe(ctx, args[1:], stdout, stderr)
	case "stats":
		return report.Stats(args[1:], stdout, stderr)
	case "export":
		return report.Export(ctx, args[1:], stdout, stderr)
	case "show":
		return report.Show(args[1:], stdout, stderr)
	case "master":
		return runMaster(ctx, args[1:], stdout, stderr)
	case "worker":
		return runWorker(ctx, args[1:], stdout, stderr)
	case "console":
		return runConsole(ctx, args[1:], stdout, stderr)
	case "ctl":
		return runCtl(args[1:], stdout, stderr)
	default:
		fmt.Fprintf(stderr, "crawlconsole: unknown command %q (want demo, crawl, sandbox, stats, export, show, serve, master, worker, console or ctl)\n", args[0])
		return ExitUsage
	}
}
