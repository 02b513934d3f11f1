package cli

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/crawlconsole/crawlconsole/engine/config"
	"github.com/crawlconsole/crawlconsole/ui/cli/clikit"
)

// configKeys maps each struct type of the config file, by the name yaml.v3's errors
// give it (config.LaneOptions), to the keys it takes.
var configKeys = func() map[string][]string {
	m := map[string][]string{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || t.PkgPath() == "time" {
			return
		}
		name := t.String()
		if _, seen := m[name]; seen {
			return
		}
		m[name] = nil
		var keys []string
		for i := range t.NumField() {
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if tag == "-" || !f.IsExported() {
				continue
			}
			if tag == "" {
				tag = strings.ToLower(f.Name)
			}
			keys = append(keys, tag)
			walk(f.Type)
		}
		m[name] = keys
	}
	walk(reflect.TypeOf(config.Options{}))
	return m
}()

// keyHint is what an unknown key of goType may have meant: the nearest key it takes
// (a typo of one or two letters), else the keys it takes, so a typo'd key does not
// send the operator to the README's reference to find the right spelling.
func keyHint(key, goType string) string {
	keys := configKeys[goType]
	if len(keys) == 0 {
		return ""
	}
	best, bestD := "", 3
	for _, k := range keys {
		if d := clikit.EditDistance(strings.ToLower(key), k); d < bestD {
			best, bestD = k, d
		}
	}
	if best != "" {
		return fmt.Sprintf("did you mean %q?", best)
	}
	sorted := slices.Sorted(slices.Values(keys))
	return "the keys here are " + strings.Join(sorted, ", ")
}
