package main

// The traced mode of "bench paths" (-cover DIR): which functions a real crawl ran,
// from the coverage counters of a copy of this command built with coverage of the
// product packages (go build -cover -covermode=count), each crawl
// (paths_crawl.go) with its own GOCOVERDIR, read back with go tool covdata
// textfmt and golang.org/x/tools/cover. A walk restricted to those functions keeps
// the static walk's order but leaves out every branch the crawl never took.
//
// Two crawls per role, of n and n+1 pages: a function "ran" if the larger crawl
// entered it; it ran "for one task" if the larger crawl entered it more often than
// the smaller one (one more page fetched, parsed and recorded), which leaves out
// what only the crawl's start, its first page or its end did.

import (
	"fmt"
	"go/ast"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/tools/cover"
	"golang.org/x/tools/go/ssa"
)

// pathCounts are how often a crawl entered each walked function that has a body
// of its own (a function literal's blocks are its own, not its parent's).
type pathCounts map[*ssa.Function]int

// ranIn is a test for a walk: the functions the counts say ran (an entry count
// above zero), and those without a counter of their own (an empty body), which
// the counters cannot tell about and the walk keeps.
func (p *pathProgram) ranIn(c pathCounts) func(*ssa.Function) bool {
	return func(fn *ssa.Function) bool {
		n, known := c[p.source(fn)]
		return !known || n > 0
	}
}

// grewIn is a test for a walk: the functions the larger crawl entered more often
// than the smaller one (those with no counter are kept, as in ranIn).
func (p *pathProgram) grewIn(small, large pathCounts) func(*ssa.Function) bool {
	return func(fn *ssa.Function) bool {
		src := p.source(fn)
		n, known := large[src]
		return !known || n > small[src]
	}
}

// source is the function whose source fn's counters are in: a generic instance's
// origin.
func (p *pathProgram) source(fn *ssa.Function) *ssa.Function {
	if o := fn.Origin(); o != nil {
		return o
	}
	return fn
}

// countsOf reads a text coverage profile (go tool covdata textfmt's, or go test
// -coverprofile's) and gives each walked function with a body the count of its
// first block: how often it was entered.
func (p *pathProgram) countsOf(profile string) (pathCounts, error) {
	profs, err := cover.ParseProfiles(profile)
	if err != nil {
		return nil, fmt.Errorf("read the coverage profile %s: %w", profile, err)
	}
	type body struct {
		fn         *ssa.Function
		start, end [2]int // line, column of the braces
	}
	bodies := map[string][]body{} // by module-relative file
	for fn := range p.byBody() {
		var b *ast.BlockStmt
		switch s := fn.Syntax().(type) {
		case *ast.FuncDecl:
			b = s.Body
		case *ast.FuncLit:
			b = s.Body
		}
		if b == nil {
			continue
		}
		l, r := p.fset.Position(b.Lbrace), p.fset.Position(b.Rbrace)
		file := p.relFile(l.Filename)
		bodies[file] = append(bodies[file], body{fn, [2]int{l.Line, l.Column}, [2]int{r.Line, r.Column}})
	}
	before := func(a, b [2]int) bool { return a[0] < b[0] || a[0] == b[0] && a[1] < b[1] }
	counts := pathCounts{}
	first := map[*ssa.Function][2]int{}
	matched := 0
	for _, pr := range profs {
		file := strings.TrimPrefix(pr.FileName, p.module+"/")
		bs := bodies[file]
		if len(bs) == 0 {
			continue
		}
		matched++
		for _, blk := range pr.Blocks {
			at := [2]int{blk.StartLine, blk.StartCol}
			// The innermost body holding the block's start is the function it is
			// in (a function's first block starts at its opening brace).
			var in *body
			for i := range bs {
				b := &bs[i]
				if !before(at, b.start) && before(at, b.end) && (in == nil || before(in.start, b.start)) {
					in = b
				}
			}
			if in == nil {
				continue
			}
			if f, ok := first[in.fn]; !ok || before(at, f) {
				first[in.fn] = at
				counts[in.fn] = blk.Count
			}
		}
	}
	if matched == 0 {
		return nil, fmt.Errorf("the coverage profile %s names none of the walked files (module %s): was it made by this module's code?", profile, p.module)
	}
	return counts, nil
}

// byBody are the walked functions written in source (no synthetic wrappers, no
// generic instances: their origins stand for them).
func (p *pathProgram) byBody() map[*ssa.Function]bool {
	out := map[*ssa.Function]bool{}
	for fn := range p.all {
		if p.isWalked(fn) && fn.Synthetic == "" && fn.Origin() == nil && fn.Syntax() != nil {
			out[fn] = true
		}
	}
	return out
}

func (p *pathProgram) relFile(name string) string {
	if rel, err := filepath.Rel(p.root, name); err == nil {
		return filepath.ToSlash(rel)
	}
	return name
}

// buildCovered builds the package main (module-relative, "./bench") with coverage
// of the module's packages into bin. (Go 1.26 wrote no counters at all from a
// build of ./bench given -coverpkg; without it, every package of the main module
// is covered, the walked ones among them.)
func (p *pathProgram) buildCovered(main, bin string) error {
	cmd := exec.Command("go", "build", "-cover", "-covermode=count", "-o", bin, main)
	cmd.Dir = p.root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build -cover %s: %v\n%s", main, err, out)
	}
	return nil
}

// runCovered runs argv with GOCOVERDIR=covdir (and, for a child it starts, the
// variable childVar naming another directory: its own), then writes covdir's
// counters as a text profile, covdir+".txt".
func runCovered(argv []string, covdir string, env ...string) (string, error) {
	if err := os.MkdirAll(covdir, 0o755); err != nil {
		return "", err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), "GOCOVERDIR="+covdir), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return textProfile(covdir)
}

// textProfile converts a GOCOVERDIR's counters into a text profile beside it.
func textProfile(covdir string) (string, error) {
	txt := strings.TrimSuffix(covdir, "/") + ".txt"
	cmd := exec.Command("go", "tool", "covdata", "textfmt", "-i="+covdir, "-o="+txt)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go tool covdata textfmt -i=%s: %v\n%s", covdir, err, out)
	}
	return txt, nil
}

// pathTrace is one role's counters: of a crawl of n pages (small) and of n+1
// (large).
type pathTrace struct{ small, large pathCounts }

// trace gives each role (local, worker) its counters from crawls of n and n+1
// pages, read from dir's text profiles when they are all there, else made by a
// covered build of ./bench and its crawls (a worker's counters are its own
// process's, apart from its master's).
func (p *pathProgram) trace(dir string, n int) (map[string]pathTrace, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	profile := func(role string, pages int) string { return filepath.Join(dir, fmt.Sprintf("%s-%d", role, pages)) }
	var want []string
	for _, role := range []string{"local", "worker"} {
		want = append(want, profile(role, n)+".txt", profile(role, n+1)+".txt")
	}
	have := true
	for _, f := range want {
		if _, err := os.Stat(f); err != nil {
			have = false
		}
	}
	if have {
		fmt.Printf("traced: the profiles in %s (remove it to trace anew)\n", dir)
	} else {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		bin := filepath.Join(dir, "bench-covered")
		fmt.Printf("traced: building ./bench with coverage of the walked packages into %s\n", bin)
		if err := p.buildCovered("./bench", bin); err != nil {
			return nil, err
		}
		for _, pages := range []int{n, n + 1} {
			k := fmt.Sprint(pages)
			if _, err := runCovered([]string{bin, "paths-crawl", "-role", "local", "-pages", k}, profile("local", pages)); err != nil {
				return nil, err
			}
			wdir := profile("worker", pages)
			if err := os.MkdirAll(wdir, 0o755); err != nil {
				return nil, err
			}
			if _, err := runCovered([]string{bin, "paths-crawl", "-role", "master", "-pages", k,
				"-worker", bin + " paths-crawl -role worker", "-worker-covdir", wdir}, profile("master", pages)); err != nil {
				return nil, err
			}
			if _, err := textProfile(wdir); err != nil {
				return nil, err
			}
		}
		fmt.Printf("traced: crawls of %d and %d pages, one box and a worker (its own process)\n", n, n+1)
	}
	out := map[string]pathTrace{}
	for _, role := range []string{"local", "worker"} {
		small, err := p.countsOf(profile(role, n) + ".txt")
		if err != nil {
			return nil, err
		}
		large, err := p.countsOf(profile(role, n+1) + ".txt")
		if err != nil {
			return nil, err
		}
		out[role] = pathTrace{small, large}
	}
	fmt.Println()
	return out, nil
}
