//go:build !race

package blockpage

const raceEnabled = false
