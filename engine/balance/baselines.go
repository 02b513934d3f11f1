package balance

import "hash/fnv"

// Baselines the bench (go run ./bench balance) measures the seed's method against.

// RoundRobin deals items in the order given, item i to worker i mod workers: the
// seed's initial even spread (step b), blind to weights.
func RoundRobin(items []Item, workers int) (Assignment, error) {
	if err := checkItems(items, workers); err != nil {
		return nil, err
	}
	a := make(Assignment, len(items))
	for i, it := range items {
		a[it.Key] = i % workers
	}
	return a, nil
}

// HashByDomain puts each item on worker FNV-1a(key) mod workers: the partitioning of
// StormCrawler's URLPartitioner and Nutch's HashPartitioner (by host or domain),
// stable and blind to weights. Keys are hashed whole, so the keyword shards of one
// social site spread like distinct domains.
func HashByDomain(items []Item, workers int) (Assignment, error) {
	if err := checkItems(items, workers); err != nil {
		return nil, err
	}
	a := make(Assignment, len(items))
	for _, it := range items {
		h := fnv.New64a()
		h.Write([]byte(it.Key))
		a[it.Key] = int(h.Sum64() % uint64(workers))
	}
	return a, nil
}

// LPT is greedy longest-processing-time first (Graham 1969): by weight descending
// (ties by key), each item to the worker with the smallest total so far. Its makespan
// is at most 4/3 − 1/(3·workers) times the optimum.
func LPT(items []Item, workers int) (Assignment, error) {
	if err := checkItems(items, workers); err != nil {
		return nil, err
	}
	order := byWeight(items)
	w := make([]float64, len(order))
	for i, k := range order {
		w[i] = items[k].Weight
	}
	return assignmentOf(items, order, lptDeal(w, workers, nil)), nil
}
