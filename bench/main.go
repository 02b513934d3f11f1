// Command bench runs crawlconsole's benchmarks against their baselines in one process:
//
//	go run ./bench NAME
//
// Each benchmark prints a readable table and, as its last line, one JSON object with
// the figures its goals are stated in.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
)

// benchmarks maps a name to its run function; each benchmark file registers itself in init.
var benchmarks = map[string]func(args []string) (map[string]any, error){}

func register(name string, run func(args []string) (map[string]any, error)) {
	benchmarks[name] = run
}

func main() {
	names := make([]string, 0, len(benchmarks))
	for n := range benchmarks {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(os.Args) < 2 || benchmarks[os.Args[1]] == nil {
		fmt.Fprintf(os.Stderr, "usage: go run ./bench NAME [flags]\nbenchmarks: %v\n", names)
		os.Exit(2)
	}
	out, err := benchmarks[os.Args[1]](os.Args[2:])
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	line, _ := json.Marshal(out)
	fmt.Println(string(line))
}
