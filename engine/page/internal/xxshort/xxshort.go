// Package xxshort holds xxhash64 sums (seed 0) of two three-byte characters written
// out. The features a page's signature walk hashes most on a page of an unspaced
// script are such pairs: the shingler's bigram (6 bytes) and the story's pair, a
// space between the two (7 bytes). xxhash.Sum64 of so few bytes is mostly its call
// (into assembly, through a wrapper) and the copy of the bytes into one buffer before
// it; these are its sums for those two lengths, read from the two characters where
// they stand (TestShortSums: the same sums as xxhash.Sum64).
package xxshort

import "math/bits"

// xxhash64's primes (seed 0).
const (
	xxPrime1 uint64 = 11400714785074694791
	xxPrime2 uint64 = 14029467366897019727
	xxPrime3 uint64 = 1609587929392839161
	xxPrime5 uint64 = 2870177450012600261
)

// xxStep4 is xxhash64's step for four bytes v (little-endian).
func xxStep4(h uint64, v uint32) uint64 {
	h ^= uint64(v) * xxPrime1
	return bits.RotateLeft64(h, 23)*xxPrime2 + xxPrime3
}

// xxStep1 is xxhash64's step for one byte.
func xxStep1(h uint64, c byte) uint64 {
	h ^= uint64(c) * xxPrime5
	return bits.RotateLeft64(h, 11) * xxPrime1
}

// xxAvalanche is xxhash64's final mix.
func xxAvalanche(h uint64) uint64 {
	h ^= h >> 33
	h *= xxPrime2
	h ^= h >> 29
	h *= xxPrime3
	h ^= h >> 32
	return h
}

// Pair33 is xxhash.Sum64String(a + b), a and b of three bytes each.
func Pair33(a, b string) uint64 {
	h := xxStep4(xxPrime5+6, uint32(a[0])|uint32(a[1])<<8|uint32(a[2])<<16|uint32(b[0])<<24)
	return xxAvalanche(xxStep1(xxStep1(h, b[1]), b[2]))
}

// Spaced33 is xxhash.Sum64String(a + " " + b), a and b of three bytes each.
func Spaced33[T string | []byte](a T, b string) uint64 {
	h := xxStep4(xxPrime5+7, uint32(a[0])|uint32(a[1])<<8|uint32(a[2])<<16|' '<<24)
	return xxAvalanche(xxStep1(xxStep1(xxStep1(h, b[0]), b[1]), b[2]))
}
