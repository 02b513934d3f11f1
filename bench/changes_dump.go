package main

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// dumpOutput writes an extractor's texts in the benchmark's output format
// (output/NAME.json: {id: {"articleBody": text}}), for evaluate.py.
func dumpOutput(dir, name string, pages []corpusPage, texts map[string]string) error {
	out := map[string]map[string]string{}
	for _, p := range pages {
		out[p.ID] = map[string]string{"articleBody": texts[p.ID]}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "output"), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "output", name+".json"), b, 0o644)
}
