package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"golang.org/x/tools/go/ssa"
)

// The fixture (testdata/paths) is small enough to walk by hand; the comments in its
// files say what each call does to the counts. It is loaded once for the package's
// tests (each load lists, type-checks and builds it again: about a second of CPU):
// a walk only reads the program, and each test gets its own copy of the settings.
func loadFixture(t *testing.T) *pathProgram {
	t.Helper()
	prog, err := fixtureOnce()
	if err != nil {
		t.Fatal(err)
	}
	own := *prog
	own.countNoops = true // the fixture's empty functions stand for work
	return &own
}

var fixtureOnce = sync.OnceValues(func() (*pathProgram, error) { return loadPathProgram("testdata/paths", nil) })

func walkFixture(t *testing.T, prog *pathProgram, entry string, absent ...string) *pathWalk {
	t.Helper()
	fn := prog.entry(entry)
	if fn == nil {
		t.Fatalf("no function %s in the fixture", entry)
	}
	isAbsent, missing := prog.absentTypes(absent)
	if len(missing) > 0 {
		t.Fatalf("no types %v in the fixture", missing)
	}
	var guard = prog.pkg("store")
	return prog.walkPath(fn, isAbsent, nil, guard)
}

func names(w *pathWalk) []string {
	var out []string
	for _, fn := range w.order {
		out = append(out, w.prog.funcName(fn))
	}
	return out
}

func TestPathsCountsEntriesReentriesAndReturnsByHand(t *testing.T) {
	prog := loadFixture(t)
	for _, c := range []struct {
		role, absent          string
		funcs, files          []string
		reentries, returns    int
		store                 []string
		pkgEntered, pkgReturn int
	}{
		{
			role: "one box", absent: "Remote",
			funcs: []string{"lane.Process", "lane.prepare", "lane.helper", "front.(Local).Deliver", "store.Save", "lane.finish"},
			files: []string{"lane/a.go", "lane/b.go", "front/local.go", "store/store.go"},
			// a.go by helper, b.go by finish; returns: b.go after helper, a.go after
			// prepare, local.go after Save, a.go after Deliver and after finish.
			reentries: 2, returns: 5,
			store:      []string{"lane.Process", "front.(Local).Deliver (lane/a.go:10)", "store.Save (front/local.go:10)"},
			pkgEntered: 3, pkgReturn: 2,
		},
		{
			role: "worker", absent: "front.Local",
			funcs:     []string{"lane.Process", "lane.prepare", "lane.helper", "front.(Remote).Deliver", "front.send", "lane.finish"},
			files:     []string{"lane/a.go", "lane/b.go", "front/remote.go"},
			reentries: 2, returns: 4,
			pkgEntered: 2, pkgReturn: 1,
		},
	} {
		w := walkFixture(t, prog, "lane.Process", c.absent)
		if got := names(w); !slices.Equal(got, c.funcs) {
			t.Errorf("%s: walked %v, want %v", c.role, got, c.funcs)
		}
		if !slices.Equal(w.files.entered, c.files) {
			t.Errorf("%s: files entered %v, want %v", c.role, w.files.entered, c.files)
		}
		if w.files.nReenter != c.reentries || w.files.reenter["lane/a.go"] != 1 || w.files.reenter["lane/b.go"] != 1 {
			t.Errorf("%s: re-entries %d %v, want %d (a.go 1, b.go 1)", c.role, w.files.nReenter, w.files.reenter, c.reentries)
		}
		if w.files.nReturns != c.returns {
			t.Errorf("%s: returns to a file left %d %v, want %d", c.role, w.files.nReturns, w.files.returns, c.returns)
		}
		if len(w.pkgs.entered) != c.pkgEntered || w.pkgs.nReenter != 0 || w.pkgs.nReturns != c.pkgReturn {
			t.Errorf("%s: packages entered %v, re-entered %d, returns %d; want %d, 0, %d",
				c.role, w.pkgs.entered, w.pkgs.nReenter, w.pkgs.nReturns, c.pkgEntered, c.pkgReturn)
		}
		if len(w.spawns) != 1 {
			t.Errorf("%s: %d go statements left, want 1 (go background(), which would reach the store)", c.role, len(w.spawns))
		}
		var chain []string
		if len(w.guarded) > 0 {
			chain = w.chain(w.guarded[0])
		}
		if len(w.guarded) > 1 || !slices.Equal(chain, c.store) {
			t.Errorf("%s: store entered by %d functions, first chain %q; want %q", c.role, len(w.guarded), chain, c.store)
		}
	}
}

func TestPathsFollowsFunctionsToWhatTheyWereGiven(t *testing.T) {
	prog := loadFixture(t)
	w := walkFixture(t, prog, "lane.Twice")
	want := []string{"lane.Twice", "lane.Each", "lane.first", "lane.second", "lane.Check", "lane.(A).Validate", "lane.Twice$1", "lane.less"}
	if got := names(w); !slices.Equal(got, want) {
		t.Errorf("walked %v, want %v (never lane.Third nor lane.(B).Validate: main hands those, not Twice)", got, want)
	}
	if !slices.Equal(w.files.entered, []string{"lane/c.go", "lane/d.go", "lane/e.go"}) || w.files.nReenter != 2 || w.files.nReturns != 4 {
		t.Errorf("files entered %v, re-entries %d, returns %d; want c, d, e, 2 (d.go by A.Validate, e.go by less), 4",
			w.files.entered, w.files.nReenter, w.files.nReturns)
	}
}

// A traced walk keeps the static walk's order but only what a run of the fixture
// ran: its Remote front, not the Local one (nor the store) main could have handed;
// and for one task, what a run of two tasks ran more often than a run of one (not
// the first task's warm-up).
func TestPathsTracedWalkKeepsWhatTheRunRan(t *testing.T) {
	t.Parallel() // its own build and runs of the fixture, on its own copy of the settings
	prog := loadFixture(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "fixture")
	if err := prog.buildCovered(".", bin); err != nil {
		t.Fatal(err)
	}
	counts := map[int]pathCounts{}
	for _, n := range []int{1, 2} {
		txt, err := runCovered([]string{bin, "tasks", fmt.Sprint(n)}, filepath.Join(dir, fmt.Sprintf("tasks-%d", n)))
		if err != nil {
			t.Fatal(err)
		}
		if counts[n], err = prog.countsOf(txt); err != nil {
			t.Fatal(err)
		}
	}
	task := prog.entry("lane.Task")
	if got := counts[2][task]; got != 2 {
		t.Errorf("lane.Task entered %d times by a run of two tasks, want 2", got)
	}
	guard := prog.pkg("store")
	for _, c := range []struct {
		mode string
		ran  func(*ssa.Function) bool
		want []string
	}{
		{"static", nil, []string{"lane.Task", "lane.warm", "front.(Local).Deliver", "store.Save", "front.(Remote).Deliver", "front.send"}},
		{"ran", prog.ranIn(counts[2]), []string{"lane.Task", "lane.warm", "front.(Remote).Deliver", "front.send"}},
		{"task", prog.grewIn(counts[1], counts[2]), []string{"lane.Task", "front.(Remote).Deliver", "front.send"}},
	} {
		w := prog.walkRan(task, nil, nil, guard, c.ran)
		if got := names(w); !slices.Equal(got, c.want) {
			t.Errorf("%s: walked %v, want %v", c.mode, got, c.want)
		}
		if reached := len(w.guarded) > 0; reached != (c.mode == "static") {
			t.Errorf("%s: store reached %v", c.mode, reached)
		}
	}
}

// A call to a function that does nothing of its own (an empty body, an accessor) is
// no step of the path: the walk leaves it out, unless told to count them.
func TestPathsLeavesOutCallsThatDoNothing(t *testing.T) {
	prog := loadFixture(t)
	for _, c := range []struct {
		count bool
		funcs []string
		files []string
		reent int
	}{
		{false, []string{"lane.Steps", "lane.(*Counter).Add", "lane.(*Counter).Sum", "lane.sum"}, []string{"lane/g.go", "lane/h.go"}, 1},
		{true, []string{"lane.Steps", "lane.(*Counter).Touch", "lane.(*Counter).Len", "lane.(*Counter).Add", "lane.(*Counter).Sum", "lane.sum"},
			[]string{"lane/g.go", "lane/h.go"}, 3},
	} {
		prog.countNoops = c.count
		w := walkFixture(t, prog, "lane.Steps")
		if got := names(w); !slices.Equal(got, c.funcs) {
			t.Errorf("count no-ops %v: walked %v, want %v", c.count, got, c.funcs)
		}
		if !slices.Equal(w.files.entered, c.files) || w.files.nReenter != c.reent {
			t.Errorf("count no-ops %v: files entered %v, re-entries %d; want %v, %d", c.count, w.files.entered, w.files.nReenter, c.files, c.reent)
		}
		if want := map[bool]int{false: 2, true: 0}[c.count]; len(w.noops) != want {
			t.Errorf("count no-ops %v: %d callees left out as doing nothing, want %d (Touch, Len)", c.count, len(w.noops), want)
		}
	}
}
