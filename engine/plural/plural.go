// Package plural writes a count with its noun: "1 site", "2 sites". Messages are
// built for any count, and "1 sites" reads as a bug to whoever sees it.
package plural

import (
	"strconv"
	"strings"
)

// Count is n and the noun one, made plural unless n is 1. The plural is many when
// given (a compound or irregular noun: "site/keyword shard", "sites/keyword
// shards"), else one with the regular English ending: "tries", "egresses",
// "lanes".
func Count[N Integer](n N, one string, many ...string) string {
	return strconv.FormatInt(int64(n), 10) + " " + Noun(n, one, many...)
}

// Integer is what a count comes as (lengths, store counters).
type Integer interface {
	~int | ~int32 | ~int64
}

// Noun is one, or its plural unless n is 1 (see Count), without the count.
func Noun[N Integer](n N, one string, many ...string) string {
	switch {
	case n == 1:
		return one
	case len(many) > 0:
		return many[0]
	}
	switch {
	case strings.HasSuffix(one, "s"), strings.HasSuffix(one, "x"), strings.HasSuffix(one, "z"),
		strings.HasSuffix(one, "ch"), strings.HasSuffix(one, "sh"):
		return one + "es"
	case len(one) > 1 && one[len(one)-1] == 'y' && !strings.ContainsRune("aeiou", rune(one[len(one)-2])):
		return one[:len(one)-1] + "ies"
	}
	return one + "s"
}
