package blockpage

// The judge's bounds, for the bad-input tests that check them.
const (
	TextScan   = textScan
	MaxCookies = maxCookies
)
