package main

import "testing"

// TestStoreGuardSeesCallsThatDoNothing: "a worker's path never enters store/" must
// see every call into the guarded package, even one that the path's count leaves
// out as doing nothing of its own (an empty body, an accessor such as
// (*store.Store).Path or Failed). The fixture's one-box path reaches store.Save,
// whose body is empty, through front.(Local).Deliver.
func TestStoreGuardSeesCallsThatDoNothing(t *testing.T) {
	t.Parallel() // its own load of the fixture program
	prog, err := loadPathProgram("testdata/paths", nil)
	if err != nil {
		t.Fatal(err)
	}
	// countNoops left false, as `go run ./bench paths` runs by default.
	isAbsent, missing := prog.absentTypes([]string{"Remote"})
	if len(missing) > 0 {
		t.Fatalf("no types %v in the fixture", missing)
	}
	w := prog.walkPath(prog.entry("lane.Process"), isAbsent, nil, prog.pkg("store"))
	if f := w.figures("one box", 5); !f.StoreReached {
		t.Errorf("the one-box path calls store.Save (lane.Process -> front.(Local).Deliver -> store.Save), but StoreReached is false (%d calls left out as doing nothing)", f.Noops)
	}
}
