package engine

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/engine/revisit"
	"github.com/crawlconsole/crawlconsole/engine/view"
	"github.com/crawlconsole/crawlconsole/store"
)

// revisit.objective and the per-class plans are checked with errors that
// name the setting and say what is allowed.
func TestRevisitObjectiveOptions(t *testing.T) {
	t.Parallel()
	bad := []badRevisit{
		{"unknown objective", func(o *config.RevisitOptions) { o.Objective = "fresh" },
			`revisit.objective must be one of balanced, freshness, age, got "fresh"`},
		{"empty objective", func(o *config.RevisitOptions) { o.Objective = "" }, "revisit.objective must be one of"},
		{"infinite budget", func(o *config.RevisitOptions) { o.Budget = math.Inf(1) }, "revisit.budget must be positive"},
		{"NaN budget", func(o *config.RevisitOptions) { o.Budget = math.NaN() }, "revisit.budget must be positive"},
		{"unknown class", func(o *config.RevisitOptions) { o.Classes = map[string]config.ClassRevisit{"blog": {Objective: "age"}} },
			`revisit.classes: unknown class "blog" (classes: soc, web_com, web_net, web_edu, web_gov)`},
		{"class objective", func(o *config.RevisitOptions) {
			o.Classes = map[string]config.ClassRevisit{"soc": {Objective: "youth"}}
		},
			`revisit.classes.soc.objective must be one of balanced, freshness, age (or empty for revisit.objective), got "youth"`},
		{"negative class budget", func(o *config.RevisitOptions) { o.Classes = map[string]config.ClassRevisit{"soc": {Budget: -1}} },
			"revisit.classes.soc.budget must be positive"},
		{"NaN class budget", func(o *config.RevisitOptions) {
			o.Classes = map[string]config.ClassRevisit{"web_gov": {Budget: math.NaN()}}
		},
			"revisit.classes.web_gov.budget must be positive"},
		{"class plan under the seed rule", func(o *config.RevisitOptions) {
			o.Policy, o.Classes = revisit.PolicySeed, map[string]config.ClassRevisit{"soc": {Objective: "age"}}
		}, `revisit.classes.soc: class plans need revisit.policy "estimator"`},
	}
	refusesRevisit(t, bad)

	t.Run("from a config file", func(t *testing.T) {
		o := testDefaults()
		o.DB = filepath.Join(t.TempDir(), "c.db")
		dec := yaml.NewDecoder(strings.NewReader(`
revisit:
  objective: freshness
  budget: 0.2
  classes:
    soc: {objective: age, budget: 2}
    web_com: {objective: balanced}
`))
		dec.KnownFields(true)
		if err := dec.Decode(&o); err != nil {
			t.Fatal(err)
		}
		e, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		planner, ok := e.rv.Tracker.Policy().(revisit.Planner)
		if !ok {
			t.Fatalf("policy %T plans nothing", e.rv.Tracker.Policy())
		}
		for class, want := range map[string]struct {
			objective string
			budget    float64
		}{"soc": {"age", 2}, "web_com": {"balanced", 0.2}, "web_gov": {"freshness", 0.2}, "web_edu": {"freshness", 0.2}} {
			if obj, b := planner.Plan(class); obj != want.objective || b != want.budget {
				t.Errorf("class %s planned with %s at %v, want %s at %v", class, obj, b, want.objective, want.budget)
			}
		}
		// The sandbox's clock runs faster: class budgets scale with the shared one.
		if s := o.Revisit.Scaled(10); s.Classes["soc"].Budget != 20 || s.Budget != 2 || o.Revisit.Classes["soc"].Budget != 2 {
			t.Errorf("scaled by 10: soc budget %v, shared %v (original soc %v)", s.Classes["soc"].Budget, s.Budget, o.Revisit.Classes["soc"].Budget)
		}
	})
	t.Run("default", func(t *testing.T) {
		if d := config.DefaultOptions().Revisit; d.Objective != revisit.ObjectiveBalanced {
			t.Errorf("default objective %q, want %q", d.Objective, revisit.ObjectiveBalanced)
		}
	})
}

// A crawl's Revisit view says, per class, with which objective and budget
// it is planned and what freshness and age its pages are heading for; the estimates
// are kept with each page, so a restarted crawl shows the same before any refetch.
func TestRevisitClassPlansShowAndSurviveARestart(t *testing.T) {
	t.Parallel()
	sb := revisitWeb(t, 5)
	o := revisitOptions(t, sb)
	o.Revisit.Policy = revisit.PolicyEstimator
	o.Revisit.Budget = 86400 // about one visit per page per second
	o.Revisit.MaxInterval = time.Second
	// The sandbox's second site is a .gov one: its pages get an age plan of their own.
	o.Revisit.Classes = map[string]config.ClassRevisit{revisit.ClassGov: {Objective: revisit.ObjectiveAge, Budget: 2 * 86400}}
	e := startEngine(t, o)
	plan := func(v *view.RevisitView, class string) view.ClassPlan {
		for _, p := range v.Plans {
			if p.Class == class {
				return p
			}
		}
		return view.ClassPlan{}
	}
	waitFor(t, "estimates for web_gov and web_com pages", func() bool {
		v := e.Snapshot().Revisit
		return plan(v, "web_gov").Pages >= 3 && plan(v, "web_com").Pages >= 3
	})
	v := e.Snapshot().Revisit
	if len(v.Plans) != len(revisit.Classes) {
		t.Fatalf("%d class plans, want one per class: %+v", len(v.Plans), v.Plans)
	}
	for class, want := range map[string]struct {
		objective string
		budget    float64
	}{"web_gov": {"age", 2 * 86400}, "web_com": {"balanced", 86400}, "soc": {"balanced", 86400}} {
		p := plan(v, class)
		if p.Objective != want.objective || p.Budget != want.budget {
			t.Errorf("class %s: planned %s at %v, want %s at %v", class, p.Objective, p.Budget, want.objective, want.budget)
		}
		if p.Pages > 0 && (!(p.Fresh >= 0 && p.Fresh <= 1) || p.Age < 0) {
			t.Errorf("class %s heading for freshness %v, age %v", class, p.Fresh, p.Age)
		}
	}
	e.Close()

	// What the store keeps per page, summed per class.
	pages, fresh := map[string]int{}, map[string]float64{}
	withStore(t, o.DB, func(st *store.Store) {
		err := st.EachRevisitSummary(func(s store.RevisitSummary) error {
			if math.IsNaN(s.Fresh) || math.IsNaN(s.Age) {
				t.Errorf("NaN estimate stored for a %s page", s.Class)
			}
			if s.Freq > 0 && s.Fresh >= 0 {
				pages[s.Class]++
				fresh[s.Class] += s.Fresh
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	o.Revisit.Enabled = false // no refetch moves the estimates while they are compared
	// Nor does a first fetch of a page the first run had not reached yet: the restarted
	// crawl may not fetch the sandbox (the SSRF guard refuses loopback again).
	o.AllowPrivate = nil
	e2 := startEngine(t, o)
	v2 := e2.Snapshot().Revisit
	for _, class := range []string{"web_gov", "web_com"} {
		p := plan(v2, class)
		if p.Pages != pages[class] || math.Abs(p.Fresh-fresh[class]/float64(pages[class])) > 1e-9 {
			t.Errorf("after the restart %s shows %d pages heading for %.4f fresh; the store holds %d at %.4f",
				class, p.Pages, p.Fresh, pages[class], fresh[class]/float64(pages[class]))
		}
	}
}
