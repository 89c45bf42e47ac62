package tvcmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// jsonStep is one run of the real binary with --json in TestJSONStyle.
// Steps run in order in one isolated environment; each names the exit
// code it expects (0: a result document; else the error document).
type jsonStep struct {
	args []string
	code int
	// stdin, when set, is the command's standard input.
	stdin string
}

// jsonStyleSteps cover every command of the tree with --json, success and
// failure. A command added to the tree needs steps here: TestJSONStyle
// fails naming it otherwise. $WORK is the test's directory, $TV the
// binary.
var jsonStyleSteps = []jsonStep{
	{args: []string{"whoami"}, code: ExitPermission},
	{args: []string{"login", "--user", "pat", "--email", "pat@example.com"}},
	{args: []string{"login", "--user", "pat", "--token-stdin"}, stdin: "", code: ExitUsage},
	{args: []string{"whoami"}},
	{args: []string{"version"}},
	{args: []string{"version", "extra"}, code: ExitUsage},
	{args: []string{"vault", "info"}},
	{args: []string{"vault", "info", "extra"}, code: ExitUsage},
	{args: []string{"template", "list"}},
	{args: []string{"template", "list", "extra"}, code: ExitUsage},
	{args: []string{"template", "show", "icm-starter"}},
	{args: []string{"template", "show", "nosuch"}, code: ExitNotFound},
	{args: []string{"template", "import", "$WORK/tpl", "--name", "skeleton"}},
	{args: []string{"template", "import", "$WORK/nosuch", "--name", "x"}, code: ExitNotFound},
	{args: []string{"workspace", "list"}},
	{args: []string{"workspace", "init", "--name", "demo"}},
	{args: []string{"workspace", "init", "--name", "other", "--template", "nosuch"}, code: ExitNotFound},
	{args: []string{"workspace", "import", "$WORK/tpl", "--name", "imported"}},
	{args: []string{"workspace", "import", "$WORK/bad", "--name", "bad"}, code: ExitInvalid},
	{args: []string{"workspace", "list"}},
	{args: []string{"workspace", "list", "extra"}, code: ExitUsage},
	{args: []string{"workspace", "checkout", "demo", "--output", "$WORK/co"}},
	{args: []string{"workspace", "checkout", "nosuch", "--output", "$WORK/co2"}, code: ExitNotFound},
	{args: []string{"workspace", "walk-test", "$WORK/co"}},
	{args: []string{"workspace", "commit", "$WORK/co", "--reason", "nothing"}},
	{args: []string{"workspace", "walk-test", "$WORK/nosuch"}, code: ExitNotFound},
	{args: []string{"workspace", "log", "demo"}},
	{args: []string{"workspace", "log", "nosuch"}, code: ExitNotFound},
	{args: []string{"workspace", "status", "$WORK/co"}},
	{args: []string{"workspace", "status", "$WORK/nosuch"}, code: ExitNotFound},
	{args: []string{"workspace", "update", "$WORK/co"}},
	{args: []string{"workspace", "update", "$WORK/nosuch"}, code: ExitNotFound},
	{args: []string{"!cp", "$WORK/tpl/CONTEXT.md", "$WORK/co/stages/01-research/output/note.md"}},
	{args: []string{"workspace", "diff", "$WORK/co"}},
	{args: []string{"workspace", "diff", "$WORK/nosuch"}, code: ExitNotFound},
	{args: []string{"!rm", "$WORK/co/stages/01-research/output/note.md"}},
	// Break the checkout: walk-test and commit fail alike, with findings.
	{args: []string{"!rm", "$WORK/co/CONTEXT.md"}},
	{args: []string{"workspace", "walk-test", "$WORK/co"}, code: ExitInvalid},
	{args: []string{"workspace", "commit", "$WORK/co", "--reason", "broken"}, code: ExitInvalid},
	{args: []string{"access", "grant", "sam", "read", "demo:stages"}},
	{args: []string{"access", "grant", "sam", "owner", "demo"}, code: ExitUsage},
	{args: []string{"access", "list", "demo"}},
	{args: []string{"access", "list", "nosuch"}, code: ExitNotFound},
	{args: []string{"access", "revoke", "sam", "demo:stages"}},
	{args: []string{"access", "revoke", "sam", "nosuch"}, code: ExitNotFound},
	{args: []string{"mcp", "install", "--target", "cursor", "--server", "local", "--root", "$WORK/co"}},
	{args: []string{"mcp", "install", "--target", "cursor", "--workspace", "nosuch", "--stage", "01-research"}, code: ExitNotFound},
	{args: []string{"mcp", "config", "--server", "local", "--root", "$WORK/co"}},
	{args: []string{"mcp", "config", "--server", "nosuch"}, code: ExitUsage},
	{args: []string{"mcp", "doctor", "--server", "local"}},
	{args: []string{"mcp", "doctor", "--server", "local", "--timeout", "-1s"}, code: ExitUsage},
	{args: []string{"mcp", "uninstall", "--target", "cursor"}},
	{args: []string{"mcp", "uninstall", "--target", "nosuch"}, code: ExitUsage},
	{args: []string{"workspace", "forget", "$WORK/co"}},
	{args: []string{"workspace", "forget", "$WORK/co"}, code: ExitNotFound},
	{args: []string{"check", "$WORK/tpl"}},
	{args: []string{"check", "$WORK/co"}, code: ExitInvalid},
	{args: []string{"vault", "init", "--bare", "$WORK/shared.git"}},
	{args: []string{"vault", "init", "--bare", "$WORK/shared.git"}, code: ExitConflict},
	{args: []string{"!git", "init", "-q", "--bare", "$WORK/empty.git"}},
	{args: []string{"vault", "push", "$WORK/empty.git"}},
	{args: []string{"vault", "push", "$WORK/nosuch.git"}, code: ExitNotFound},
	{args: []string{"hook", "install", "$WORK/shared.git"}},
	{args: []string{"hook", "install", "$WORK/nosuch.git"}, code: ExitRefused},
	{args: []string{"vault", "doctor"}},
	{args: []string{"vault", "doctor", "extra"}, code: ExitUsage},
	{args: []string{"vault", "use", "$WORK/vault.git"}},
	{args: []string{"vault", "use"}, code: ExitUsage},
	{args: []string{"hook"}, code: ExitUsage},
	{args: []string{"hook", "pre-receive"}, code: ExitUsage},
	// Commands that print no JSON refuse --json.
	{args: []string{}, code: ExitUsage},
	{args: []string{"help"}, code: ExitUsage},
	{args: []string{"workspace"}, code: ExitUsage},
	{args: []string{"vault"}, code: ExitUsage},
	{args: []string{"template"}, code: ExitUsage},
	{args: []string{"access"}, code: ExitUsage},
	{args: []string{"mcp"}, code: ExitUsage},
	{args: []string{"mcp", "serve"}, code: ExitUsage},
	{args: []string{"mcp", "local"}, code: ExitUsage},
	{args: []string{"completion"}, code: ExitUsage},
	{args: []string{"completion", "bash"}, code: ExitUsage},
	{args: []string{"completion", "zsh"}, code: ExitUsage},
	{args: []string{"completion", "fish"}, code: ExitUsage},
	{args: []string{"completion", "pwsh"}, code: ExitUsage},
}

// jsonExempt names the commands whose document is another program's
// format: `tv mcp config` prints the hosts' own {"mcpServers": …} entry.
var jsonExempt = map[string]bool{"tv mcp config": true}

// TestJSONStyle runs every command of the real binary with --json, on
// success and on failure, and checks each document against the style
// README.md documents: exactly one JSON document on stdout, nothing on
// stderr, snake_case keys, no null, no empty string or zero time standing
// for an absent value, ids named for what they identify (no bare "id" or
// "head"), modes as octal strings, times as RFC 3339 UTC seconds, and
// every failure as {"error": {"code", "exit_code", "message", …}} whose
// exit_code is the process's.
func TestJSONStyle(t *testing.T) {
	t.Parallel()
	bin := tvBin(t)
	work := t.TempDir()
	home := filepath.Join(work, "home")
	env := append(os.Environ(),
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"TV_VAULT="+filepath.Join(work, "vault.git"),
		"TV_EXECUTABLE="+bin,
		"TV_WORKSPACE_PATHS=",
		"GIT_CONFIG_NOSYSTEM=1",
	)
	for _, d := range []string{home, filepath.Join(work, "tpl", "stages", "01-a"), filepath.Join(work, "bad")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFiles(t, work, map[string]string{
		"tpl/CLAUDE.md":                 "# Skeleton\n\nMap of the workspace.\n",
		"tpl/CONTEXT.md":                "# Routing\n\n- stages/01-a: the only stage\n",
		"tpl/stages/01-a/CONTEXT.md":    "# Stage 01-a\n\n## Inputs\n\n- none\n\n## Process\n\n1. Write.\n\n## Outputs\n\n- output/\n",
		"tpl/stages/01-a/output/.keep":  "",
		"bad/stages/01-a/CONTEXT.md":    "no headings\n",
		"bad/stages/01-a/output/x.md":   "x\n",
		"bad/stages/01-a/references.md": "x\n",
	})

	covered := map[string]map[bool]bool{} // full name -> success? -> seen
	for _, st := range jsonStyleSteps {
		args := make([]string, len(st.args))
		for i, a := range st.args {
			args[i] = strings.ReplaceAll(a, "$WORK", work)
		}
		if len(args) > 0 && args[0] == "!rm" {
			if err := os.Remove(args[1]); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if len(args) > 0 && args[0] == "!cp" {
			b, err := os.ReadFile(args[1])
			if err == nil {
				err = os.WriteFile(args[2], b, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			continue
		}
		if len(args) > 0 && args[0] == "!git" {
			if out, err := exec.Command("git", args[1:]...).CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args[1:], err, out)
			}
			continue
		}
		name := "tv " + strings.Join(args, " ")
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(bin, append(args, "--json")...)
			cmd.Env, cmd.Dir = env, work
			cmd.Stdin = strings.NewReader(st.stdin)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			code := 0
			if err := cmd.Run(); err != nil {
				var ee *exec.ExitError
				if !errors.As(err, &ee) {
					t.Fatal(err)
				}
				code = ee.ExitCode()
			}
			if code != st.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, st.code, stdout.String(), stderr.String())
			}
			full := fullName(resolveArgs(commandTree(t), args).cmd)
			if covered[full] == nil {
				covered[full] = map[bool]bool{}
			}
			covered[full][code == 0] = true
			if stderr.Len() > 0 && code != 0 {
				t.Errorf("stderr is not empty with --json: %q", stderr.String())
			}
			doc := decodeOne(t, stdout.Bytes())
			if code != 0 {
				checkErrorDoc(t, doc, code)
			}
			if !jsonExempt[full] {
				for _, p := range jsonStyleProblems("", doc) {
					t.Errorf("%s\ndocument: %s", p, stdout.String())
				}
			}
		})
	}

	// Every command is covered: success and failure for those that print
	// JSON, the refusal for those that do not.
	var missing []string
	for full, c := range allCommands(t) {
		_, refuses := noJSON[full]
		refuses = refuses || len(c.Commands) > 0
		switch {
		case refuses && !covered[full][false]:
			missing = append(missing, full+" (its --json refusal)")
		case !refuses && (!covered[full][true] || !covered[full][false]):
			missing = append(missing, fmt.Sprintf("%s (success %v, failure %v)", full, covered[full][true], covered[full][false]))
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("no JSON style step for %s: add one to jsonStyleSteps", m)
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// decodeOne decodes stdout as exactly one JSON object.
func decodeOne(t *testing.T, b []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("stdout is not a JSON object: %v\n%s", err, b)
	}
	if dec.More() {
		t.Fatalf("stdout holds more than one JSON document:\n%s", b)
	}
	return doc
}

// checkErrorDoc: a failure is {"error": {…}} and nothing else, with a
// known code, the process's exit code and a message.
func checkErrorDoc(t *testing.T, doc map[string]any, code int) {
	t.Helper()
	e, ok := doc["error"].(map[string]any)
	if !ok || len(doc) != 1 {
		t.Fatalf("a failure's document is not {\"error\": {…}}: %v", doc)
	}
	if c, _ := e["code"].(string); c == "" {
		t.Errorf("error document without a code: %v", e)
	}
	if m, _ := e["message"].(string); m == "" {
		t.Errorf("error document without a message: %v", e)
	}
	if n, _ := e["exit_code"].(json.Number); n.String() != fmt.Sprint(code) {
		t.Errorf("error exit_code %v, process exited %d", e["exit_code"], code)
	}
	if e["code"] == "invalid_tree" {
		if f, ok := e["findings"].([]any); !ok || len(f) == 0 {
			t.Errorf("an invalid tree's error document has no findings: %v", e)
		}
	}
}

var (
	snakeKey   = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	octalMode  = regexp.MustCompile(`^[0-7]{6}$`)
	utcSeconds = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)
	looksTime  = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d`)
	zeroHash   = regexp.MustCompile(`^0{40}$`)
)

// jsonStyleProblems lists where v (at path) breaks the JSON style.
func jsonStyleProblems(path string, v any) []string {
	var out []string
	bad := func(format string, args ...any) {
		out = append(out, path+": "+fmt.Sprintf(format, args...))
	}
	switch x := v.(type) {
	case nil:
		bad("null (an empty list is [], an absent value an absent key)")
	case string:
		switch {
		case x == "":
			bad(`"" (an absent value is an absent key)`)
		case looksTime.MatchString(x) && !utcSeconds.MatchString(x):
			bad("time %q is not RFC 3339 UTC to the second", x)
		case strings.HasPrefix(x, "0001-01-01"), zeroHash.MatchString(x):
			bad("zero-valued placeholder %q", x)
		}
	case map[string]any:
		for k, e := range x {
			p := path + "." + k
			if !snakeKey.MatchString(k) && !strings.HasSuffix(path, ".env") { // env's keys are variable names
				out = append(out, p+": key is not snake_case")
			}
			switch k {
			case "id", "head":
				out = append(out, p+": name the id for what it identifies (workspace_id, template_id, vault_id, version)")
			case "mode":
				if s, ok := e.(string); !ok || !octalMode.MatchString(s) {
					out = append(out, fmt.Sprintf("%s: mode %v is not an octal string like \"100644\"", p, e))
				}
			}
			if strings.HasSuffix(k, "_at") {
				if s, ok := e.(string); !ok || !utcSeconds.MatchString(s) {
					out = append(out, fmt.Sprintf("%s: %v is not an RFC 3339 UTC time to the second", p, e))
				}
			}
			out = append(out, jsonStyleProblems(p, e)...)
		}
	case []any:
		for i, e := range x {
			out = append(out, jsonStyleProblems(fmt.Sprintf("%s[%d]", path, i), e)...)
		}
	}
	return out
}

// TestJSONStyleRules shows the checker catches each kind of break.
func TestJSONStyleRules(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want string
	}{
		{`{"files":[{"Path":"a"}]}`, "not snake_case"},
		{`{"env":{"TV_VAULT":""}}`, `.env.TV_VAULT: ""`},
		{`{"mode":33188}`, "octal"},
		{`{"updated_at":"2026-01-02T03:04:05.123456789Z"}`, "UTC time to the second"},
		{`{"updated_at":"2026-01-02T03:04:05+01:00"}`, "UTC time to the second"},
		{`{"updated_at":"0001-01-01T00:00:00Z"}`, "placeholder"},
		{`{"findings":null}`, "null"},
		{`{"head":""}`, "name the id"},
		{`{"id":"ws_1"}`, "name the id"},
		{`{"on_top_of":""}`, `""`},
	} {
		t.Run(tc.doc, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tc.doc), &v); err != nil {
				t.Fatal(err)
			}
			got := strings.Join(jsonStyleProblems("", v), "; ")
			if !strings.Contains(got, tc.want) {
				t.Fatalf("problems %q, want one about %q", got, tc.want)
			}
		})
	}
	var ok any
	_ = json.Unmarshal([]byte(`{"workspace_id":"ws_1","mode":"100644","updated_at":"2026-01-02T03:04:05Z","files":[]}`), &ok)
	if p := jsonStyleProblems("", ok); len(p) != 0 {
		t.Fatalf("a well-formed document has problems: %v", p)
	}
}
