//go:build race

package blockpage

// raceEnabled: the race detector instruments allocations, so the allocation
// bounds below do not hold under go test -race.
const raceEnabled = true
