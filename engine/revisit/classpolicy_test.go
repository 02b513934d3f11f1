package revisit

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
	"time"
)

// A class planned apart spends its own budget on its own pages, by its
// own objective, whatever the other classes do; the outlook and the plan are per
// class.
func TestClassPolicyKeepsBudgetsApart(t *testing.T) {
	base, err := NewEstimatorPolicy(EstimatorOptions{Budget: 0.1, Objective: ObjectiveFreshness})
	if err != nil {
		t.Fatal(err)
	}
	soc, err := NewEstimatorPolicy(EstimatorOptions{Budget: 1, Objective: ObjectiveAge})
	if err != nil {
		t.Fatal(err)
	}
	pol := NewClassPolicy(base, map[string]*EstimatorPolicy{ClassSocial: soc})
	tr, _ := NewTracker(Config{Initial: 24 * time.Hour, Windows: Windows{ClassCom: 0, ClassSocial: 0}}, pol)
	rng := rand.New(rand.NewSource(3))
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	const perClass = 150
	var pages []*simPage
	for i := range 2 * perClass {
		class := ClassCom
		if i%2 == 1 {
			class = ClassSocial
		}
		pages = append(pages, &simPage{rate: math.Pow(10, -2+3.5*rng.Float64()), p: Page{URL: fmt.Sprintf("https://x.test/%d", i), Class: class}})
	}
	const horizon = 45.0
	runPoisson(tr, rng, t0, pages, horizon)
	fetches := map[string]int{}
	fastFetches := map[string]int{}
	for _, s := range pages {
		fetches[s.p.Class] += s.fetches
		if s.rate > 10 {
			fastFetches[s.p.Class] += s.fetches
		}
	}
	for class, budget := range map[string]float64{ClassCom: 0.1, ClassSocial: 1} {
		perPageDay := float64(fetches[class]) / perClass / (horizon / 2)
		if perPageDay < 0.75*budget || perPageDay > 1.25*budget {
			t.Errorf("%s: %.3f fetches per page per day, its budget %v", class, perPageDay, budget)
		}
		if obj, b := pol.Plan(class); b != budget {
			t.Errorf("%s planned at %v (%s), want %v", class, b, obj, budget)
		}
	}
	// Age visits the fast social pages; freshness gives the fast web_com ones up.
	if fastFetches[ClassSocial] < 10*max(fastFetches[ClassCom], 1) {
		t.Errorf("fetches of pages changing over 10 times a day: soc %d, web_com %d", fastFetches[ClassSocial], fastFetches[ClassCom])
	}
	out := pol.Outlook()
	if out[ClassSocial].Pages != perClass || out[ClassCom].Pages != perClass {
		t.Fatalf("outlook counts %d soc and %d web_com pages, want %d each", out[ClassSocial].Pages, out[ClassCom].Pages, perClass)
	}
	if a, f := out[ClassSocial].MeanAge(), out[ClassCom].MeanAge(); !(a < f) {
		t.Errorf("expected age: soc (age plan, 10× budget) %.2f days, web_com %.2f", a, f)
	}
	if out[ClassCom].Behind == 0 || out[ClassSocial].Behind >= out[ClassCom].Behind {
		t.Errorf("pages not followed: soc %d, web_com %d; the freshness plan at a tenth of the budget should give up more",
			out[ClassSocial].Behind, out[ClassCom].Behind)
	}
	// Forgetting a page takes it out of its own class's outlook.
	for _, s := range pages {
		if s.p.Class == ClassSocial {
			pol.Forget(&s.p)
			break
		}
	}
	if got := pol.Outlook()[ClassSocial].Pages; got != perClass-1 {
		t.Errorf("after forgetting a soc page the outlook counts %d, want %d", got, perClass-1)
	}
}
