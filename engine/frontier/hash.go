package frontier

import "github.com/cespare/xxhash/v2"

// Hash returns the 64-bit identity of a normalized URL: xxhash64 (seed 0) of its bytes.
// It is stable across runs, machines and versions of this program, because it is stored:
// it is a task's ParentHash (M1 adjacency), the dedupe key (M4) and an index column.
// Hash the output of Normalize, never a raw link, or equal pages get different hashes.
//
// Seeds carry ParentHash 0. A real URL hashing to 0 is possible but has probability 2^-64
// per URL; it would only make that page's children look like siblings of the seeds.
func Hash(normalizedURL string) uint64 {
	return xxhash.Sum64String(normalizedURL)
}
