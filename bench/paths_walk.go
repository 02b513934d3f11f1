package main

// The walker of "bench paths": a static walk of the calls one task's path makes,
// in the order the source makes them, counting how often the walk enters a file (or
// a package) it had entered before. See paths.go for the command and its roles.

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/callgraph/vta"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// pathProgram is a module's packages in SSA form with their call graph (VTA over
// CHA): the code a walk may enter and the callees of each of its call sites.
type pathProgram struct {
	ssa    *ssa.Program
	root   string // the module's directory: files are named relative to it
	module string // the module's path: packages are named relative to it
	fset   *token.FileSet
	walked map[*types.Package]bool // the packages a walk enters (the others are left alone)
	graph  *callgraph.Graph
	byName map[string]*ssa.Function // walked functions by funcName
	funcs  int                      // functions with a body in the walked packages
	all    map[*ssa.Function]bool   // every function of the program
	// countNoops walks into the functions that do nothing of their own (noop):
	// off, a call to one is not a step of the path.
	countNoops bool
}

// loadPathProgram loads the module's packages in dir but those under the folders
// skip names from source (their dependencies from export data: a walk never enters
// them), builds their SSA and the call graph.
func loadPathProgram(dir string, skip []string) (*pathProgram, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	list, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedModule, Dir: root}, "./...")
	if err != nil {
		return nil, fmt.Errorf("list the packages in %s: %w", root, err)
	}
	var patterns []string
	for _, p := range list {
		rel := "."
		if p.Module != nil && p.PkgPath != p.Module.Path {
			rel = strings.TrimPrefix(p.PkgPath, p.Module.Path+"/")
		}
		if !skipped(rel, skip) {
			patterns = append(patterns, p.PkgPath)
		}
	}
	if len(patterns) == 0 {
		return nil, fmt.Errorf("no packages in %s but under %v: run it in the module's directory (-dir)", root, skip)
	}
	cfg := &packages.Config{Mode: packages.LoadSyntax | packages.NeedModule, Dir: root}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("load the packages in %s: %w", root, err)
	}
	var errs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
	})
	if len(errs) > 0 {
		return nil, fmt.Errorf("packages do not type-check (fix the build first): %s", strings.Join(errs[:min(len(errs), 5)], "; "))
	}
	prog, spkgs := ssautil.Packages(pkgs, ssa.InstantiateGenerics)
	prog.Build()

	all := ssautil.AllFunctions(prog)
	p := &pathProgram{ssa: prog, root: root, fset: prog.Fset, walked: map[*types.Package]bool{}, byName: map[string]*ssa.Function{}, all: all}
	if m := pkgs[0].Module; m != nil {
		p.module = m.Path
	}
	for _, sp := range spkgs {
		if sp != nil {
			p.walked[sp.Pkg] = true
		}
	}
	for fn := range all {
		if p.isWalked(fn) && fn.Blocks != nil {
			p.funcs++
			if fn.Synthetic == "" && fn.Parent() == nil && fn.Origin() == nil {
				p.byName[p.funcName(fn)] = fn
			}
		}
	}
	p.graph = vta.CallGraph(all, nil)
	return p, nil
}

// skipped tells whether a module-relative package path is under one of the folders.
func skipped(rel string, folders []string) bool {
	for _, f := range folders {
		if f != "" && (rel == f || strings.HasPrefix(rel, f+"/")) {
			return true
		}
	}
	return false
}

// pkgOf is the package a function's source is in (an instance's generic origin's,
// a closure's enclosing function's); nil for a synthetic wrapper.
func pkgOf(fn *ssa.Function) *types.Package {
	if o := fn.Origin(); o != nil {
		fn = o
	}
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	if fn.Synthetic != "" || fn.Pkg == nil {
		return nil
	}
	return fn.Pkg.Pkg
}

func (p *pathProgram) isWalked(fn *ssa.Function) bool {
	pkg := pkgOf(fn)
	return pkg != nil && p.walked[pkg]
}

// relPkg names a package relative to the module ("engine/lanes"; "." for its root).
func (p *pathProgram) relPkg(pkg *types.Package) string {
	if pkg.Path() == p.module {
		return "."
	}
	return strings.TrimPrefix(pkg.Path(), p.module+"/")
}

// funcName names a function as the roles name their entries: "engine/lanes.(*Runner).process".
func (p *pathProgram) funcName(fn *ssa.Function) string {
	name := fn.Name()
	if recv := fn.Signature.Recv(); recv != nil {
		t := recv.Type()
		star := ""
		if pt, ok := t.(*types.Pointer); ok {
			t, star = pt.Elem(), "*"
		}
		if n, ok := t.(*types.Named); ok {
			name = fmt.Sprintf("(%s%s).%s", star, n.Obj().Name(), name)
		}
	}
	if pkg := pkgOf(fn); pkg != nil {
		return p.relPkg(pkg) + "." + name
	}
	return name
}

// file is the module-relative file a function's source is in.
func (p *pathProgram) file(fn *ssa.Function) string {
	name := p.fset.Position(fn.Pos()).Filename
	if rel, err := filepath.Rel(p.root, name); err == nil {
		return filepath.ToSlash(rel)
	}
	return name
}

// where is a module-relative file:line.
func (p *pathProgram) where(pos token.Pos) string {
	at := p.fset.Position(pos)
	name := at.Filename
	if rel, err := filepath.Rel(p.root, name); err == nil {
		name = filepath.ToSlash(rel)
	}
	return fmt.Sprintf("%s:%d", name, at.Line)
}

// receiverName is the named type a method (or a closure in one, or a bound or
// promoted method's wrapper) belongs to, "" for a plain function.
func receiverName(fn *ssa.Function) *types.TypeName {
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	var recv *types.Var
	if r := fn.Signature.Recv(); r != nil {
		recv = r
	} else if m, ok := fn.Object().(*types.Func); ok {
		recv = m.Signature().Recv()
	}
	if recv == nil {
		return nil
	}
	t := recv.Type()
	if pt, ok := t.(*types.Pointer); ok {
		t = pt.Elem()
	}
	if n, ok := t.(*types.Named); ok {
		return n.Obj()
	}
	return nil
}

// pathWalk is one walk's record: the functions it expanded, and each time it
// entered a file or a package, by a call or by a call's return.
type pathWalk struct {
	prog    *pathProgram
	absent  func(*types.TypeName) bool // the types the role does not build: dynamic calls skip their methods
	handoff func(*ssa.Function) bool   // the functions whose go statements carry the task on
	guard   *types.Package             // the package the path must not reach (nil: none)
	ran     func(*ssa.Function) bool   // the functions a traced crawl ran (nil: a static walk, every one)

	expanded map[*ssa.Function]bool
	from     map[*ssa.Function]pathStep // how the walk first came to a function
	order    []*ssa.Function            // functions in the order the walk expanded them
	files    pathUnits
	pkgs     pathUnits
	guarded  []*ssa.Function        // the guard package's functions entered from outside it
	spawns   []ssa.CallInstruction  // the go statements not followed
	unran    map[*ssa.Function]bool // callees left out because the traced crawl never ran them
	noops    map[*ssa.Function]bool // callees left out because they do nothing of their own (noop)
}

// pathStep is a call the walk followed: the caller and the call's position.
type pathStep struct {
	caller *ssa.Function
	pos    token.Pos
}

// pathUnits counts a walk's moves between units (files or packages). The walk is
// always in one unit. A call into another unit enters it: the first time, a new
// unit; after that, a re-entry (the walk had been there and left). A return to the
// caller's unit from another is a return.
type pathUnits struct {
	cur      string
	seen     map[string]bool
	entered  []string            // units in the order first entered
	reenter  map[string]int      // re-entries by call, by unit
	returns  map[string]int      // returns to a unit left, by unit
	reasons  map[string][]string // each re-entry by call: caller site -> callee
	nReenter int
	nReturns int
}

func newPathUnits() pathUnits {
	return pathUnits{seen: map[string]bool{}, reenter: map[string]int{}, returns: map[string]int{}, reasons: map[string][]string{}}
}

func (u *pathUnits) call(unit, why string) {
	if unit == u.cur {
		return
	}
	u.cur = unit
	if !u.seen[unit] {
		u.seen[unit] = true
		u.entered = append(u.entered, unit)
		return
	}
	u.reenter[unit]++
	u.nReenter++
	u.reasons[unit] = append(u.reasons[unit], why)
}

func (u *pathUnits) back(unit string) {
	if unit == u.cur {
		return
	}
	u.cur = unit
	u.returns[unit]++
	u.nReturns++
}

// walkPath walks from entry: depth first, each function's calls in source order,
// each function expanded once, entering only the program's walked packages. A
// closure is walked where it is called (or where it is handed to code the walk does
// not enter). A dynamic call (an interface method or a function value) goes to every
// callee the call graph gives it but the methods of the types absent says the role
// does not build.
func (p *pathProgram) walkPath(entry *ssa.Function, absent func(*types.TypeName) bool, handoff func(*ssa.Function) bool, guard *types.Package) *pathWalk {
	return p.walkRan(entry, absent, handoff, guard, nil)
}

// walkRan is walkPath restricted to the functions ran says a traced crawl ran: a
// call to any other is not followed (nil ran: every function, a static walk).
func (p *pathProgram) walkRan(entry *ssa.Function, absent func(*types.TypeName) bool, handoff func(*ssa.Function) bool, guard *types.Package, ran func(*ssa.Function) bool) *pathWalk {
	w := &pathWalk{prog: p, absent: absent, handoff: handoff, guard: guard, ran: ran, expanded: map[*ssa.Function]bool{},
		from: map[*ssa.Function]pathStep{}, files: newPathUnits(), pkgs: newPathUnits(), unran: map[*ssa.Function]bool{},
		noops: map[*ssa.Function]bool{}}
	w.visit(entry, "entry", nil)
	return w
}

// binding is what an expansion's parameters were given at the call that led the
// walk there: a call through a parameter goes to what it was given (a function
// literal, a method value, a concrete type in an interface), not to everything
// the context-free call graph lets reach it.
type binding map[*ssa.Parameter]ssa.Value

func (w *pathWalk) visit(fn *ssa.Function, why string, bind binding) {
	p := w.prog
	w.expanded[fn] = true
	w.order = append(w.order, fn)
	file, pkg := p.file(fn), p.relPkg(pkgOf(fn))
	w.files.call(file, why)
	w.pkgs.call(pkg, why)
	if w.guard != nil && pkgOf(fn) == w.guard {
		if st, ok := w.from[fn]; !ok || pkgOf(st.caller) != w.guard {
			w.guarded = append(w.guarded, fn)
		}
	}
	for _, s := range w.sites(fn) {
		for _, callee := range w.callees(s, bind) {
			w.call(s, callee, w.bindArgs(s, callee, bind), file, pkg)
		}
		// A function this site hands to a callee expanded before (at another
		// site) runs here: the callee calls it.
		if c := s.Common().StaticCallee(); c != nil && w.prog.isWalked(c) && len(c.Params) == len(s.Common().Args) {
			for i, a := range s.Common().Args {
				if lit := funcOf(resolve(a, bind)); lit != nil && w.prog.isWalked(lit) && callsParam(c, c.Params[i]) {
					w.call(s, lit, nil, file, pkg)
				}
			}
		}
	}
}

// call walks into callee from site s, unless it was expanded before, and comes back
// to the caller's file and package.
func (w *pathWalk) call(s ssa.CallInstruction, callee *ssa.Function, bind binding, file, pkg string) {
	if w.expanded[callee] {
		return
	}
	// A call into the guarded package is a step even when it does nothing of its
	// own: the guard says the path never goes there, an accessor included.
	guarded := w.guard != nil && pkgOf(callee) == w.guard
	if !w.prog.countNoops && !guarded && noop(callee) {
		w.noops[callee] = true
		return
	}
	if w.ran != nil && !w.ran(callee) {
		w.unran[callee] = true
		return
	}
	p := w.prog
	w.from[callee] = pathStep{caller: s.Parent(), pos: s.Pos()}
	w.visit(callee, fmt.Sprintf("%s %s -> %s", p.where(s.Pos()), p.funcName(s.Parent()), p.funcName(callee)), bind)
	w.files.back(file)
	w.pkgs.back(pkg)
}

// noop tells whether a function does nothing of its own: an empty body (a role's
// method with nothing to do there, such as a worker's front told a task began), or
// one return of values read without a call but len and cap (an accessor: m.n,
// len(b.lanes), m.queued[url]), which the compiler inlines into its caller. No
// statement of its file runs when it is called, so the path does not go there; a
// traced walk could not tell either apart anyway: an empty body has no counter, so
// it was kept as run, and an accessor's counter says the state was read, not that
// the task went anywhere.
func noop(fn *ssa.Function) bool {
	decl, ok := fn.Syntax().(*ast.FuncDecl)
	if !ok || decl.Body == nil {
		return false
	}
	switch len(decl.Body.List) {
	case 0:
		return true
	case 1:
		ret, ok := decl.Body.List[0].(*ast.ReturnStmt)
		if !ok {
			return false
		}
		pure := true
		for _, r := range ret.Results {
			ast.Inspect(r, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.FuncLit:
					pure = false
				case *ast.CallExpr:
					if id, ok := x.Fun.(*ast.Ident); !ok || id.Name != "len" && id.Name != "cap" {
						pure = false
					}
				}
				return pure
			})
		}
		return pure
	}
	return false
}

// funcOf is the function a value is, when it is one (a function literal, a named
// function, a method value).
func funcOf(v ssa.Value) *ssa.Function {
	switch x := v.(type) {
	case *ssa.MakeClosure:
		fn, _ := x.Fn.(*ssa.Function)
		return fn
	case *ssa.Function:
		return x
	}
	return nil
}

// callsParam tells whether fn calls its parameter prm itself (not on a goroutine).
func callsParam(fn *ssa.Function, prm *ssa.Parameter) bool {
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			if c, ok := in.(*ssa.Call); ok && c.Call.Value == prm {
				return true
			}
		}
	}
	return false
}

// bindArgs is callee's binding at call site s (made in a function bound by bind).
func (w *pathWalk) bindArgs(s ssa.CallInstruction, callee *ssa.Function, bind binding) binding {
	c := s.Common()
	args := c.Args
	if c.IsInvoke() {
		args = append([]ssa.Value{c.Value}, args...)
	}
	if len(args) != len(callee.Params) {
		return nil // a closure handed to std code, a wrapper between: nothing known
	}
	out := binding{}
	for i, a := range args {
		out[callee.Params[i]] = resolve(a, bind)
	}
	return out
}

// resolve is what a value stands for in a binding: a parameter's argument.
func resolve(v ssa.Value, bind binding) ssa.Value {
	if prm, ok := v.(*ssa.Parameter); ok && bind[prm] != nil {
		return bind[prm]
	}
	return v
}

// bound is the function a call site's binding settles it to, if it does: a call of
// a parameter given a function literal or a method value, or an interface method
// called on a parameter given a concrete type.
func (w *pathWalk) bound(s ssa.CallInstruction, bind binding) *ssa.Function {
	c := s.Common()
	v := c.Value
	if c.IsInvoke() {
		for { // v.(Validator).Validate(): look through assertions to the parameter
			switch x := v.(type) {
			case *ssa.TypeAssert:
				v = x.X
				continue
			case *ssa.ChangeInterface:
				v = x.X
				continue
			case *ssa.Extract:
				if ta, ok := x.Tuple.(*ssa.TypeAssert); ok && x.Index == 0 {
					v = ta.X
					continue
				}
			}
			break
		}
	}
	prm, ok := v.(*ssa.Parameter)
	if !ok || bind[prm] == nil {
		return nil
	}
	b := bind[prm]
	if c.IsInvoke() {
		mi, ok := b.(*ssa.MakeInterface)
		if !ok || types.IsInterface(mi.X.Type()) {
			return nil
		}
		sel := w.prog.ssa.MethodSets.MethodSet(mi.X.Type()).Lookup(c.Method.Pkg(), c.Method.Name())
		if sel == nil {
			return nil
		}
		return w.prog.ssa.MethodValue(sel)
	}
	return funcOf(b)
}

// sites are fn's call sites in source order. A go statement starts other work, not
// the task's path: it is left out (and kept in w.spawns) unless fn hands its task
// to the goroutine (handoff).
func (w *pathWalk) sites(fn *ssa.Function) []ssa.CallInstruction {
	var out []ssa.CallInstruction
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			c, ok := in.(ssa.CallInstruction)
			if !ok {
				continue
			}
			if _, spawn := c.(*ssa.Go); spawn && (w.handoff == nil || !w.handoff(fn)) {
				w.spawns = append(w.spawns, c)
				continue
			}
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pos() < out[j].Pos() })
	return out
}

// callees are the walked functions a call site may reach: through synthetic
// wrappers (bound and promoted methods, instances without source), which the walk
// does not count as a place.
func (w *pathWalk) callees(s ssa.CallInstruction, bind binding) []*ssa.Function {
	node := w.prog.graph.Nodes[s.Parent()]
	if node == nil {
		return nil
	}
	dynamic := s.Common().StaticCallee() == nil
	var out []*ssa.Function
	seen := map[*ssa.Function]bool{}
	var reach func(fn *ssa.Function, depth int)
	reach = func(fn *ssa.Function, depth int) {
		if seen[fn] || depth > 4 {
			return
		}
		seen[fn] = true
		if dynamic && w.absent != nil {
			if n := receiverName(fn); n != nil && w.absent(n) {
				return
			}
		}
		if w.prog.isWalked(fn) {
			out = append(out, fn)
			return
		}
		if fn.Synthetic == "" || fn.Origin() != nil {
			return // std or third party: not walked
		}
		if n := w.prog.graph.Nodes[fn]; n != nil {
			for _, e := range n.Out {
				reach(e.Callee.Func, depth+1)
			}
		}
	}
	if fn := w.bound(s, bind); fn != nil {
		reach(fn, 0)
	} else {
		for _, e := range node.Out {
			if e.Site == s {
				reach(e.Callee.Func, 0)
			}
		}
	}
	// A closure handed to code the walk does not enter (sort.Slice, slices.IndexFunc,
	// a WaitGroup's Go) runs there: it is walked as called here. time.AfterFunc runs
	// it later, on its own.
	if len(out) == 0 && !async(s.Common().StaticCallee()) {
		for _, a := range s.Common().Args {
			if fn := funcOf(resolve(a, bind)); fn != nil && w.prog.isWalked(fn) && !seen[fn] {
				seen[fn] = true
				out = append(out, fn)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return w.prog.funcName(out[i]) < w.prog.funcName(out[j]) })
	return out
}

// async tells whether a function of the standard library runs the function it is
// given later on its own goroutine.
func async(fn *ssa.Function) bool {
	return fn != nil && fn.Pkg != nil && fn.Pkg.Pkg.Path() == "time" && fn.Name() == "AfterFunc"
}

// chain is the calls that first led the walk to fn, entry first.
func (w *pathWalk) chain(fn *ssa.Function) []string {
	var rev []string
	for {
		st, ok := w.from[fn]
		if !ok {
			rev = append(rev, w.prog.funcName(fn))
			break
		}
		rev = append(rev, fmt.Sprintf("%s (%s)", w.prog.funcName(fn), w.prog.where(st.pos)))
		fn = st.caller
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// topUnits are the units re-entered by call, most first (ties by name), at most n.
func topUnits(counts map[string]int, n int) []string {
	var names []string
	for k := range counts {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if counts[names[i]] != counts[names[j]] {
			return counts[names[i]] > counts[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) > n {
		names = names[:n]
	}
	return names
}
