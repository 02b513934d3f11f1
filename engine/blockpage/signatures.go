package blockpage

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// signaturesJSON is the vendor table: what each anti-bot vendor's block and
// challenge answers carry, with the public source of every signal.
//
//go:embed signatures.json
var signaturesJSON []byte

// Signature is one vendor's signals, as signatures.json spells them.
type Signature struct {
	Name    string   `json:"name"`    // short id: "cloudflare", "aws-waf", ...
	Label   string   `json:"label"`   // shown in the Egress pane and the log
	Sources []string `json:"sources"` // where the signals come from
	// PresenceHeaders and PresenceCookies name the vendor only: a protected site
	// sends them with every answer, ordinary pages included.
	PresenceHeaders map[string]string `json:"presence_headers"`
	PresenceCookies []string          `json:"presence_cookies"`
	// BlockHeaders and ChallengeCookies are sent only with a block or challenge:
	// a refusal by themselves (hard evidence).
	BlockHeaders     map[string]string `json:"block_headers"`
	ChallengeCookies []string          `json:"challenge_cookies"`
	// Statuses are the statuses the vendor blocks with; with one of its markers, or
	// with its presence when the status is not 200 or 503, the answer is a refusal.
	Statuses []int `json:"statuses"`
	// Markers are lower-case body substrings of the vendor's block pages and
	// challenge scripts.
	Markers []string `json:"markers"`
	// Locations are lower-case substrings of the vendor's challenge or visitor URLs:
	// a redirect there, or a page fetched from there, is a refusal.
	Locations []string `json:"locations"`
}

// vendors is the compiled table, in file order (the first vendor with hard
// evidence names the verdict).
var vendors = mustLoad(signaturesJSON)

// blockHeaders are each vendor's BlockHeaders (by index in vendors), sorted by
// name, with the name as net/http keys a header map: every answer is looked at
// for them, and Header.Get would canonicalize (and allocate) each name again.
var blockHeaders = headerPatterns(vendors)

// headerPattern is a header field to look for: name as the table spells it, key
// as a header map holds it, and a lower-case substring its value must contain
// ("": any value).
type headerPattern struct{ name, key, val string }

func headerPatterns(sigs []Signature) [][]headerPattern {
	out := make([][]headerPattern, len(sigs))
	for i, s := range sigs {
		for name, val := range s.BlockHeaders {
			out[i] = append(out[i], headerPattern{name: name, key: http.CanonicalHeaderKey(name), val: val})
		}
		slices.SortFunc(out[i], func(a, b headerPattern) int { return strings.Compare(a.name, b.name) })
	}
	return out
}

// Vendors returns the vendor table (a copy), for documentation and tests.
func Vendors() []Signature { return slices.Clone(vendors) }

func mustLoad(b []byte) []Signature {
	sigs, err := load(b)
	if err != nil {
		panic("blockpage: signatures.json: " + err.Error()) // embedded: a build error, not input
	}
	return sigs
}

// load parses and checks a signature table: every vendor named, sourced, and with
// lower-case patterns (matching is on lower-cased text).
func load(b []byte) ([]Signature, error) {
	var doc struct {
		Vendors []Signature `json:"vendors"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, s := range doc.Vendors {
		if s.Name == "" || s.Label == "" || len(s.Sources) == 0 {
			return nil, fmt.Errorf("vendor %d: name, label and sources are required", i)
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("vendor %q twice", s.Name)
		}
		seen[s.Name] = true
		lists := [][]string{s.PresenceCookies, s.ChallengeCookies, s.Markers, s.Locations}
		for _, m := range []map[string]string{s.PresenceHeaders, s.BlockHeaders} {
			for k, v := range m {
				lists = append(lists, []string{k, v})
			}
		}
		for _, l := range lists {
			for _, p := range l {
				if p != strings.ToLower(p) {
					return nil, fmt.Errorf("vendor %q: pattern %q must be lower-case", s.Name, p)
				}
			}
		}
		for _, m := range s.Markers {
			if len(m) < 2 {
				return nil, fmt.Errorf("vendor %q: marker %q is too short", s.Name, m)
			}
		}
	}
	return doc.Vendors, nil
}
