package balance_test

import (
	"fmt"

	"github.com/crawlconsole/crawlconsole/engine/balance"
)

// Cost tables to weights, weights dealt over two workers, then a third worker joins.
// Both results are optimal here: the items do not split any more evenly.
func Example() {
	costs := map[string][]float64{ // seconds spent per round
		"news-a.example": {30, 34}, "news-b.example": {12}, "news-c.example": {20},
		"social.example/kw1": {8, 10}, "social.example/kw2": {18}, "social.example/kw3": nil, // not crawled yet
	}
	items := balance.ItemsOf(balance.Weights(costs))
	two, _ := balance.Balance(items, 2, balance.Options{Seed: 1})
	t := balance.Totals(items, two, 2)
	fmt.Printf("2 workers: makespan %.3f (bound %.3f)\n", balance.Makespan(t), balance.LowerBound(items, 2))

	three, _ := balance.Rebalance(items, two, 3, balance.Options{Seed: 1})
	t = balance.Totals(items, three, 3)
	fmt.Printf("3 workers: makespan %.3f (bound %.3f), %d moves\n",
		balance.Makespan(t), balance.LowerBound(items, 3), len(balance.Moves(two, three)))
	// Output:
	// 2 workers: makespan 1.029 (bound 1.000)
	// 3 workers: makespan 1.071 (bound 1.000), 2 moves
}
