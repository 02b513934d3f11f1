package main

// bench paths: how one task's path moves through the product's files and packages,
// measured by a static walk (paths_walk.go) over the call graph of the module's
// product packages (everything but bench/ and sandbox/):
//
//	go run ./bench paths [-role local|worker] [-top N] [-v] [-trace] [-noops] [-cover DIR [-pages N]]
//
// For each role and each of its entries, the walk goes depth first from the entry,
// each function's calls in source order (a closure's calls where the closure is
// written, a defer's where the defer is), each function expanded once. A call to a
// function that does nothing of its own (an empty body, an accessor: noop in
// paths_walk.go) is not a step unless -noops says to count them. It prints
// the files (and packages) entered, the re-entries (a call into a file the walk had
// been in and left), the returns to a file left, the files re-entered more than
// twice, and whether the path reaches the store package, with the chain of calls.
//
// Interface and function-value calls are resolved by the call graph (VTA), then
// narrowed to the role: the methods of the types a role never builds are dropped
// (roles below). A call into the standard library or a third-party package is not
// followed, nor what such code calls back.
//
// A static walk follows every branch, the rare and the failing ones too. With
// -cover, the command also traces real crawls (paths_cover.go, paths_crawl.go) and
// walks again, restricted to the functions they ran ("ran"), and to those one more
// page made run again ("task"): the same order, fewer branches.

import (
	"flag"
	"fmt"
	"go/types"
	"sort"
	"strings"

	"golang.org/x/tools/go/ssa"
)

func init() { register("paths", runPaths) }

// pathRole is one kind of crawl's wiring as the walk sees it.
type pathRole struct {
	name string
	// entries are where a task's path starts in this role, as the walk names
	// functions ("engine/lanes.(*Runner).process").
	entries []string
	// absent are the types this role never builds (bare names match a type of that
	// name in any product package): a dynamic call skips their methods.
	absent []string
	// handoffs are the functions whose go statements carry the task on (the
	// goroutine delivers it): the walk follows them. Every other go statement
	// starts other work (another lane, a background refill) and is not followed.
	handoffs []string
	// storeFree says the goal: no function of the store package on the path.
	storeFree bool
}

// pathRoles are the roles' wiring on main: engine.newEngine builds a localFront and
// a local.Crew, StartWorker replaces the front by a worker.Front (the master over
// NATS) and joins the lanes to its node (worker.Join), NewMaster the crew by a
// master.Crew (over its crawlPort and the engine's masterShell). Edit here when
// the wiring moves: the command says which names it no longer finds.
var pathRoles = []pathRole{
	{
		name: "local",
		entries: []string{
			"engine/lanes.(*Runner).process", // what a lane does with one task it took
			"engine/lanes.(*Runner).Run",     // the lane's loop: take, pause, process, release
			"engine/front.(*Front).Record",   // the store half: a task's outcome recorded
		},
		absent: []string{"engine/worker.Front", "engine/master.Crew", "masterRole", "workerRole", "engine/master.crawlPort", "masterShell",
			"engine/worker.joined", "workerCrawl",
			"engine/worker.Node", "engine/worker.Upstream", "engine/worker.Outbox"}, // a worker's node: its egress claims, its reports
		handoffs: []string{"engine/lanes.(*Runner).renderLater"}, // a page rendered beside the lane's next fetches
	},
	{
		name: "worker",
		entries: []string{
			"engine/worker.(*Node).onTasks",  // a batch of the master's tasks arrives
			"engine/lanes.(*Runner).process", // a lane fetches and processes one of them
			"engine/lanes.(*Runner).Run",
		},
		absent:    []string{"localFront", "engine/master.Crew", "masterRole", "localRole", "engine/master.crawlPort", "masterShell"},
		handoffs:  []string{"engine/lanes.(*Runner).renderLater"},
		storeFree: true,
	},
}

// pathGuard is the package a worker's path must not enter.
const pathGuard = "store"

// pathFigures are one walk's figures.
type pathFigures struct {
	Role, Entry      string
	Mode             string // static, ran (a traced crawl ran it), task (one more page ran it)
	Functions        int
	FilesEntered     int
	FileReentries    int
	FileReturns      int
	FilesOverTwice   int
	PackagesEntered  int
	PackageReentries int
	GoNotFollowed    int
	NotRan           int // callees left out: the traced crawls never ran them (or not again for one more page)
	Noops            int // callees left out: they do nothing of their own (an empty body, an accessor)
	StoreReached     bool
	StoreEntries     int
	StoreChains      [][]string `json:"-"`
	TopFiles         []string   // "file N"
}

func runPaths(args []string) (map[string]any, error) {
	fs := flag.NewFlagSet("paths", flag.ContinueOnError)
	dir := fs.String("dir", ".", "the module's directory")
	role := fs.String("role", "", "walk only this role (local, worker)")
	top := fs.Int("top", 8, "how many of the most re-entered files to show")
	verbose := fs.Bool("v", false, "show each re-entry of the files re-entered more than twice, and every chain into the store")
	trace := fs.Bool("trace", false, "print, in walk order, each call the walk followed into another file")
	skip := fs.String("skip", "bench,sandbox", "folders (module-relative) not walked")
	entries := fs.String("entry", "", "walk from these functions instead (comma-separated, as the walk names them: engine/lanes.(*Runner).process), with -role's wiring if given")
	followGo := fs.Bool("go", false, "follow every go statement too (an upper bound: another lane's work, background refills)")
	within := fs.String("within", "", "walk only these packages (module-relative, comma-separated, e.g. engine,engine/lanes): the others count as third party")
	coverDir := fs.String("cover", "", "also walk what real crawls ran: their coverage goes to this directory (kept; the profiles found there are used again, remove it to trace anew)")
	noops := fs.Bool("noops", false, "walk into the functions that do nothing of their own too (an empty body, an accessor): by default a call to one is not a step")
	pages := fs.Int("pages", 2, "with -cover: the traced crawls fetch this many pages and one more")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	prog, err := loadPathProgram(*dir, strings.Split(*skip, ","))
	if err != nil {
		return nil, err
	}
	prog.countNoops = *noops
	walked := "all but " + *skip
	if *within != "" {
		if err := prog.restrict(strings.Split(*within, ",")); err != nil {
			return nil, err
		}
		walked = "only " + *within
	}
	fmt.Printf("paths: %s, %d packages walked (%s), %d functions, call graph VTA\n\n", prog.module, len(prog.walked), walked, prog.funcs)
	var traces map[string]pathTrace
	if *coverDir != "" {
		if traces, err = prog.trace(*coverDir, *pages); err != nil {
			return nil, err
		}
	}

	guard := prog.pkg(pathGuard)
	roles := pathRoles
	if *entries != "" {
		custom := pathRole{name: "custom", entries: strings.Split(*entries, ",")}
		for _, r := range pathRoles {
			if r.name == *role {
				custom = r
				custom.entries = strings.Split(*entries, ",")
			}
		}
		roles = []pathRole{custom}
	}
	out := map[string]any{}
	var rows []pathFigures
	for _, r := range roles {
		if *role != "" && *role != r.name && *entries == "" {
			continue
		}
		absent, missing := prog.absentTypes(r.absent)
		for _, m := range missing {
			fmt.Printf("role %s: no type %q in the product: the wiring table (bench/paths.go) is stale\n", r.name, m)
		}
		handoff, unknown := prog.handoffs(r.handoffs)
		if *followGo {
			handoff = func(*ssa.Function) bool { return true }
		}
		for _, m := range unknown {
			fmt.Printf("role %s: no function %s in the product: the hand-offs (bench/paths.go) are stale\n", r.name, m)
		}
		for _, name := range r.entries {
			entry := prog.entry(name)
			if entry == nil {
				fmt.Printf("role %s: no function %s in the product: the entries (bench/paths.go) are stale\n\n", r.name, name)
				continue
			}
			modes := []string{"static"}
			if traces != nil {
				modes = append(modes, "ran", "task")
			}
			for _, mode := range modes {
				var ran func(*ssa.Function) bool
				switch mode {
				case "ran":
					ran = prog.ranIn(traces[r.name].large)
				case "task":
					ran = prog.grewIn(traces[r.name].small, traces[r.name].large)
				}
				if ran != nil && !ran(entry) {
					fmt.Printf("role %s · entry %s · %s: the traced crawls never ran it\n\n", r.name, name, mode)
					continue
				}
				w := prog.walkRan(entry, absent, handoff, guard, ran)
				f := w.figures(r.name, *top)
				f.Mode = mode
				rows = append(rows, f)
				printPathWalk(w, f, r, *verbose, *trace)
				key := r.name + " " + name
				if mode != "static" {
					key += " " + mode
				}
				out[key] = f
			}
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no walk: role %q unknown or its entries not found", *role)
	}
	if traces != nil {
		printPathTable(rows)
	}
	// The goals (issue: one house for one crawler): a worker's path never enters
	// store/; a lane's path re-enters no file more than twice.
	for _, mode := range []string{"static", "ran", "task"} {
		workerStoreFree, overTwice, walks := true, 0, 0
		for _, f := range rows {
			if f.Mode != mode {
				continue
			}
			walks++
			if f.Role == "worker" && f.StoreReached {
				workerStoreFree = false
			}
			overTwice += f.FilesOverTwice
		}
		if walks == 0 {
			continue
		}
		fmt.Printf("goal (%s): a worker's path never enters %s/: %v\n", mode, pathGuard, passFail(workerStoreFree))
		fmt.Printf("goal (%s): no file re-entered more than twice: %v (%d files over, summed over the walks)\n", mode, passFail(overTwice == 0), overTwice)
		suffix := ""
		if mode != "static" {
			suffix = "_" + mode
		}
		out["worker_store_free"+suffix] = workerStoreFree
		out["files_over_twice"+suffix] = overTwice
	}
	return out, nil
}

// printPathTable sets each walk's figures beside the same entry's in the other
// modes.
func printPathTable(rows []pathFigures) {
	fmt.Printf("%-8s %-34s %-6s %9s %6s %11s %8s %9s %6s\n", "role", "entry", "mode", "functions", "files", "re-entries", "returns", "files >2", "store")
	for _, f := range rows {
		store := "no"
		if f.StoreReached {
			store = "yes"
		}
		fmt.Printf("%-8s %-34s %-6s %9d %6d %11d %8d %9d %6s\n", f.Role, strings.TrimPrefix(f.Entry, "engine/"), f.Mode,
			f.Functions, f.FilesEntered, f.FileReentries, f.FileReturns, f.FilesOverTwice, store)
	}
	fmt.Println()
}

func passFail(ok bool) string {
	if ok {
		return "pass"
	}
	return "FAIL"
}

// restrict walks only the packages named (module-relative paths).
func (p *pathProgram) restrict(rels []string) error {
	keep := map[*types.Package]bool{}
	for _, r := range rels {
		pkg := p.pkg(r)
		if pkg == nil {
			return fmt.Errorf("-within: no package %q among those walked", r)
		}
		keep[pkg] = true
	}
	p.walked = keep
	return nil
}

// pkg is the walked package of that module-relative path, nil if none.
func (p *pathProgram) pkg(rel string) *types.Package {
	for pkg := range p.walked {
		if p.relPkg(pkg) == rel {
			return pkg
		}
	}
	return nil
}

// entry is the walked function of that name or, when a move renamed its package,
// the one function whose name ends the same after the package ("(*Runner).process").
func (p *pathProgram) entry(name string) *ssa.Function {
	if fn := p.byName[name]; fn != nil {
		return fn
	}
	i := strings.Index(name, ".(")
	if i < 0 {
		i = strings.LastIndex(name, ".")
	}
	if i < 0 {
		return nil
	}
	var found *ssa.Function
	for n, fn := range p.byName {
		if strings.HasSuffix(n, name[i:]) {
			if found != nil {
				return nil // ambiguous: name the package
			}
			found = fn
		}
	}
	if found != nil {
		fmt.Printf("(%s is %s now: bench/paths.go can say so)\n", name, p.funcName(found))
	}
	return found
}

// handoffs is a test for the named functions (their closures included), and the
// names no product function has.
func (p *pathProgram) handoffs(names []string) (func(*ssa.Function) bool, []string) {
	set := map[*ssa.Function]bool{}
	var missing []string
	for _, n := range names {
		if fn := p.byName[n]; fn != nil {
			set[fn] = true
		} else {
			missing = append(missing, n)
		}
	}
	return func(fn *ssa.Function) bool {
		for fn.Parent() != nil {
			fn = fn.Parent()
		}
		return set[fn]
	}, missing
}

// absentTypes is a test for the named types, and the names no product type has.
func (p *pathProgram) absentTypes(names []string) (func(*types.TypeName) bool, []string) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	found := map[string]bool{}
	for pkg := range p.walked {
		for _, n := range names {
			bare := n
			if i := strings.LastIndex(n, "."); i >= 0 {
				bare = n[i+1:]
				if p.relPkg(pkg) != n[:i] {
					continue
				}
			}
			if tn, ok := pkg.Scope().Lookup(bare).(*types.TypeName); ok && tn != nil {
				found[n] = true
			}
		}
	}
	var missing []string
	for _, n := range names {
		if !found[n] {
			missing = append(missing, n)
		}
	}
	return func(tn *types.TypeName) bool {
		if tn.Pkg() == nil || !p.walked[tn.Pkg()] {
			return false
		}
		return want[tn.Name()] || want[p.relPkg(tn.Pkg())+"."+tn.Name()]
	}, missing
}

func (w *pathWalk) figures(role string, top int) pathFigures {
	f := pathFigures{
		Role: role, Entry: w.prog.funcName(w.order[0]), Functions: len(w.order),
		FilesEntered: len(w.files.entered), FileReentries: w.files.nReenter, FileReturns: w.files.nReturns,
		PackagesEntered: len(w.pkgs.entered), PackageReentries: w.pkgs.nReenter,
		GoNotFollowed: len(w.spawns), NotRan: len(w.unran), Noops: len(w.noops),
		StoreReached: len(w.guarded) > 0, StoreEntries: len(w.guarded),
	}
	for _, n := range w.files.reenter {
		if n > 2 {
			f.FilesOverTwice++
		}
	}
	for _, file := range topUnits(w.files.reenter, top) {
		f.TopFiles = append(f.TopFiles, fmt.Sprintf("%s %d", file, w.files.reenter[file]))
	}
	for _, fn := range w.guarded {
		f.StoreChains = append(f.StoreChains, w.chain(fn))
	}
	return f
}

func printPathWalk(w *pathWalk, f pathFigures, r pathRole, verbose, trace bool) {
	fmt.Printf("role %s · entry %s · %s\n", f.Role, f.Entry, f.Mode)
	if trace {
		for _, fn := range w.order[1:] {
			st := w.from[fn]
			if w.prog.file(fn) != w.prog.file(st.caller) {
				fmt.Printf("    %-44s %s -> %s\n", w.prog.where(st.pos), w.prog.funcName(st.caller), w.prog.funcName(fn))
			}
		}
	}
	fmt.Printf("  functions %d · files entered %d · re-entries %d · returns to a file left %d · files re-entered more than twice %d\n",
		f.Functions, f.FilesEntered, f.FileReentries, f.FileReturns, f.FilesOverTwice)
	if !w.prog.countNoops {
		fmt.Printf("  callees left out as doing nothing of their own (an empty body, an accessor): %d\n", f.Noops)
	}
	if f.Mode != "static" {
		fmt.Printf("  callees left out (the traced crawls did not run them%s): %d\n", map[bool]string{true: " again for one more page"}[f.Mode == "task"], f.NotRan)
	}
	fmt.Printf("  packages entered %d · re-entries %d (most: %s)\n", f.PackagesEntered, f.PackageReentries,
		strings.Join(withCounts(topUnits(w.pkgs.reenter, 4), w.pkgs.reenter), ", "))
	if len(f.TopFiles) > 0 {
		fmt.Printf("  most re-entered files: %s\n", strings.Join(f.TopFiles, ", "))
	}
	if verbose {
		for _, file := range topUnits(w.files.reenter, len(w.files.reenter)) {
			if w.files.reenter[file] <= 2 {
				break
			}
			fmt.Printf("  %s re-entered %d times:\n", file, w.files.reenter[file])
			for _, why := range w.files.reasons[file] {
				fmt.Printf("      %s\n", why)
			}
		}
	}
	if verbose && len(w.noops) > 0 {
		var names []string
		for fn := range w.noops {
			names = append(names, w.prog.funcName(fn))
		}
		sort.Strings(names)
		fmt.Printf("  callees left out as doing nothing of their own: %s\n", strings.Join(names, ", "))
	}
	if verbose && len(w.spawns) > 0 {
		fmt.Printf("  go statements not followed (other work than the task's; what they run is not counted):\n")
		for _, g := range w.spawns {
			fmt.Printf("      %s in %s\n", w.prog.where(g.Pos()), w.prog.funcName(g.Parent()))
		}
	}
	switch {
	case w.guard == nil:
		fmt.Printf("  %s/: not among the packages walked\n", pathGuard)
	case !f.StoreReached:
		fmt.Printf("  %s/: not reached\n", pathGuard)
	default:
		verdict := ""
		if r.storeFree {
			verdict = " (goal: never)"
		}
		fmt.Printf("  %s/: reached%s, entered from outside by %d functions; the first by\n", pathGuard, verdict, len(f.StoreChains))
		n := 1
		if verbose {
			n = len(f.StoreChains)
		}
		for _, c := range f.StoreChains[:n] {
			fmt.Printf("      %s\n", strings.Join(c, "\n        -> "))
		}
	}
	fmt.Println()
}

func withCounts(names []string, counts map[string]int) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%s %d", n, counts[n])
	}
	return out
}
