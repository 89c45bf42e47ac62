package jsonschema

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// moduleDir is the directory of a module of tv's build list in the module
// cache. A module that is not there fails the test: the suite files are
// part of it (.ci/run downloads them).
func moduleDir(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", path).Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Fatalf("%s is not in the module cache (go list: %v); run `go mod download %s`", path, err, path)
	}
	return dir
}

type suiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

// suiteSkips are suite cases this package knowingly fails, with why.
var suiteSkips = map[string]string{
	"mixed-dialects.json/subschema without applicator":                  "custom metaschema vocabularies are not applied",
	"vocabulary.json/using keywords from disabled vocabulary":           "custom metaschema vocabularies are not applied",
	"email.json/validation of duration strings/backslash inside quoted": `RFC 5321 allows the quoted pair \b in a quoted local part`,
}

// runSuite runs every file of the JSON-Schema-Test-Suite directory dir
// (draft d), loading remote references from remotes.
func runSuite(t *testing.T, dir, remotes string, d Draft, assertFormat bool) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		t.Fatalf("no suite files in %s: the module cache copy is incomplete; run `go clean -modcache` or `go mod download` again", dir)
	}
	load := func(u string) (any, error) {
		rest, ok := strings.CutPrefix(u, "http://localhost:1234/")
		if !ok {
			return nil, os.ErrNotExist
		}
		b, err := os.ReadFile(filepath.Join(remotes, filepath.FromSlash(rest)))
		if err != nil {
			return nil, err
		}
		return Unmarshal(b)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var groups []suiteGroup
		if err := json.Unmarshal(b, &groups); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, g := range groups {
			name := filepath.Base(f) + "/" + g.Description
			doc, err := Unmarshal(g.Schema)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			s, err := Compile(doc, &Options{URL: "http://localhost:1234/suite.json", DefaultDraft: d, Load: load, AssertFormat: assertFormat})
			if err != nil {
				if why, ok := suiteSkips[name]; ok {
					t.Logf("skip %s: %s", name, why)
					continue
				}
				t.Errorf("%s: compile: %v", name, err)
				continue
			}
			for _, c := range g.Tests {
				cname := name + "/" + c.Description
				if why, ok := suiteSkips[cname]; ok {
					t.Logf("skip %s: %s", cname, why)
					continue
				}
				v, err := Unmarshal(c.Data)
				if err != nil {
					t.Fatalf("%s: %v", cname, err)
				}
				err = s.Validate(v)
				if (err == nil) != c.Valid {
					t.Errorf("%s: valid=%v, got %v", cname, c.Valid, err)
				}
			}
		}
	}
}

// TestSuite runs the JSON-Schema-Test-Suite files (draft 2020-12 and
// draft 7) that github.com/google/jsonschema-go, a module of tv's build
// list, ships, and the extra suite of github.com/santhosh-tekuri/jsonschema
// (a test dependency of internal/tvcmd). Either missing from the module cache
// fails the test.
func TestSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	{
		td := filepath.Join(moduleDir(t, "github.com/google/jsonschema-go"), "jsonschema", "testdata")
		t.Run("2020-12", func(t *testing.T) {
			runSuite(t, filepath.Join(td, "draft2020-12"), filepath.Join(td, "remotes"), Draft2020, false)
		})
		t.Run("7", func(t *testing.T) {
			runSuite(t, filepath.Join(td, "draft7"), filepath.Join(td, "remotes"), Draft7, false)
		})
	}
	{
		td := filepath.Join(moduleDir(t, "github.com/santhosh-tekuri/jsonschema/v6"), "testdata", "Extra-Test-Suite")
		t.Run("extra/2020-12", func(t *testing.T) {
			runSuite(t, filepath.Join(td, "tests", "draft2020-12"), filepath.Join(td, "remotes"), Draft2020, false)
		})
		t.Run("extra/7", func(t *testing.T) {
			runSuite(t, filepath.Join(td, "tests", "draft7"), filepath.Join(td, "remotes"), Draft7, false)
		})
		t.Run("extra/4", func(t *testing.T) {
			runSuite(t, filepath.Join(td, "tests", "draft4"), filepath.Join(td, "remotes"), Draft4, false)
		})
		for _, d := range []string{"draft7", "draft2020-12"} {
			t.Run("extra/format/"+d, func(t *testing.T) {
				runSuite(t, filepath.Join(td, "tests", d, "optional", "format"), filepath.Join(td, "remotes"), Draft2020, true)
			})
		}
	}
}
