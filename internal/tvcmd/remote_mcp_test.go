package tvcmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/thalix/tv/gitbackend/gitservertest"
)

// mcpTranscript runs one scenario through `tv mcp serve`, unscoped and
// scoped, with the official Go SDK client over stdio, and returns what a
// client sees, ids and times left out: tool lists, each call's outcome and
// its data's fields. The vault is e's TV_VAULT (a path or a URL).
func mcpTranscript(t *testing.T, e *vsEnv) []string {
	t.Helper()
	ws := e.setup()
	var out []string
	note := func(name string, r *vsResult) {
		t.Helper()
		if r.isError {
			out = append(out, name+": refused")
			return
		}
		var data map[string]any
		if err := json.Unmarshal(r.env.Data, &data); err != nil {
			t.Fatalf("%s: data %s: %v", name, r.env.Data, err)
		}
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range data {
				if !yield(k) {
					return
				}
			}
		})
		out = append(out, name+": "+strings.Join(keys, ","))
	}
	u := e.serve("alice", "")
	out = append(out, "unscoped tools: "+strings.Join(u.names(t), ","))
	note("vault_whoami", u.call(t, "vault_whoami", nil))
	note("vault_workspace_list", u.call(t, "vault_workspace_list", nil))
	note("vault_template_list", u.call(t, "vault_template_list", nil))
	co := filepath.Join(e.base, "alice-co")
	note("vault_workspace_checkout", u.call(t, "vault_workspace_checkout", map[string]any{"workspace": "demo", "output_dir": co}))
	note("vault_workspace_checkout again", u.call(t, "vault_workspace_checkout", map[string]any{"workspace": "demo", "output_dir": co}))

	s := e.serve("alice", "", "--workspace", ws, "--stage", "stages/01-research")
	out = append(out, "scoped tools: "+strings.Join(s.names(t), ","))
	note("vault_file_info", s.call(t, "vault_file_info", map[string]any{"path": "stages/01-research/CONTEXT.md"}))
	note("vault_file_read", s.call(t, "vault_file_read", map[string]any{"path": "stages/01-research/CONTEXT.md"}))
	if err := os.WriteFile(filepath.Join(co, "stages", "01-research", "output", "mcp.md"), []byte("# via mcp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	note("vault_workspace_walk_test", s.call(t, "vault_workspace_walk_test", map[string]any{"checkout_dir": co}))
	note("vault_workspace_commit", s.call(t, "vault_workspace_commit", map[string]any{"checkout_dir": co, "reason": "through mcp"}))
	if err := os.WriteFile(filepath.Join(co, "stages", "02-draft", "output", "outside.md"), []byte("# outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	note("vault_workspace_commit outside the stage", s.call(t, "vault_workspace_commit", map[string]any{"checkout_dir": co, "reason": "outside"}))
	log := e.must("alice", "workspace", "log", "demo")
	out = append(out, "log has the mcp commit: "+ynStr(strings.Contains(log, "through mcp")))
	return out
}

func ynStr(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// TestMCPServeRemote: both MCP servers (`tv mcp serve` unscoped and
// scoped) on a vault behind smart HTTP (TV_VAULT=URL) and file://, driven
// by the Go SDK client over stdio, give the client what they give on a
// local vault: the same tools, outcomes and data fields; the commit lands
// on the server.
func TestMCPServeRemote(t *testing.T) {
	t.Parallel()
	local := newVSEnv(t)
	want := mcpTranscript(t, local)
	for _, proto := range []string{"http", "file"} {
		t.Run(proto, func(t *testing.T) {
			t.Parallel()
			e := newVSEnv(t)
			root := filepath.Join(e.base, "srv")
			repo := filepath.Join(root, "vault.git")
			gitservertest.InitBare(t, repo)
			e.vault = "file://" + repo
			if proto == "http" {
				e.vault = gitservertest.StartHTTP(t, root, nil).URL + "/vault.git"
			}
			got := mcpTranscript(t, e)
			if !slices.Equal(got, want) {
				t.Fatalf("remote (%s) MCP transcript differs from the local one:\nremote:\n%s\nlocal:\n%s", proto, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if log := gitservertest.Git(t, repo, "log", "--all", "--format=%s"); !strings.Contains(log, "through mcp") || strings.Contains(log, "outside") {
				t.Fatalf("server history:\n%s", log)
			}
			gitservertest.Git(t, repo, "fsck", "--strict")
		})
	}
	t.Logf("transcript:\n%s", strings.Join(want, "\n"))
}
