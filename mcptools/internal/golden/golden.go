// Package golden compares generated text with committed golden files, for
// the MCP servers' tool-schema snapshots and tool tables. UPDATE_TOOLSNAPS=1
// rewrites the files instead.
package golden

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Update reports whether golden files are being rewritten.
var Update = os.Getenv("UPDATE_TOOLSNAPS") == "1"

// File compares got with the file at path (or rewrites it under Update);
// hint says how to regenerate it.
func File(t *testing.T, path, got, hint string) {
	t.Helper()
	if Update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with UPDATE_TOOLSNAPS=1 to create it)", err)
	}
	if string(want) != got {
		t.Fatalf("%s is stale; review and %s\ngot:\n%s", path, hint, got)
	}
}

// Snapshots compares each tool definition (as tools/list sends it) with
// dir/<name>.snap, and fails on snapshot files no tool has.
func Snapshots(t *testing.T, dir string, tools map[string]any, hint string) {
	t.Helper()
	for name, def := range tools {
		t.Run(name, func(t *testing.T) {
			b, err := json.MarshalIndent(def, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			File(t, filepath.Join(dir, name+".snap"), string(b)+"\n", hint)
		})
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != len(tools) {
		t.Errorf("%d snapshot files for %d tools: remove stale snapshots", len(ents), len(tools))
	}
}
