package tvcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thalix/tv/engine"
)

// runTV runs tv in-process with an isolated environment.
func runTV(t *testing.T, env map[string]string, terminal bool, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), append([]string{"tv"}, args...), &IO{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return env[k] }, StderrIsTerminal: terminal,
	}, testFull)
	return out.String(), errb.String(), code
}

func isolated(t *testing.T) map[string]string {
	home := t.TempDir()
	return map[string]string{"HOME": home, "TV_VAULT": filepath.Join(home, "vault.git")}
}

func TestProgressOnlyOnTerminal(t *testing.T) {
	env := isolated(t)
	runTV(t, env, false, "login", "--user", "pat")
	runTV(t, env, false, "workspace", "init", "--name", "demo")
	for _, tc := range []struct {
		name     string
		terminal bool
		args     []string
		want     bool
	}{
		{"terminal", true, nil, true},
		{"piped", false, nil, false},
		{"json on a terminal", true, []string{"--json"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"workspace", "checkout", "demo", "--output", filepath.Join(t.TempDir(), "co")}, tc.args...)
			_, stderr, code := runTV(t, env, tc.terminal, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if got := strings.Contains(stderr, "checkout  ["); got != tc.want {
				t.Fatalf("progress drawn = %v, want %v (stderr %q)", got, tc.want, stderr)
			}
		})
	}
}

func TestJSONErrorDocument(t *testing.T) {
	env := isolated(t)
	stdout, stderr, code := runTV(t, env, false, "workspace", "checkout", "nosuch", "--output", t.TempDir()+"/x", "--json")
	if code != ExitNotFound || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var doc struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	if err := dec.Decode(&doc); err != nil || dec.More() {
		t.Fatalf("stdout is not exactly one JSON document: %q (%v)", stdout, err)
	}
	if doc.Error.Code != "not_found" || !strings.Contains(doc.Error.Message, "nosuch") {
		t.Fatalf("error doc %+v", doc)
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int
		name string
	}{
		{nil, ExitOK, ""},
		{usagef("x"), ExitUsage, "usage"},
		{fmt.Errorf("wrap: %w", engine.ErrUsage), ExitUsage, "usage"},
		{&engine.InvalidTreeError{}, ExitInvalid, "invalid_tree"},
		{&engine.ConflictError{Paths: []string{"a"}}, ExitConflict, "conflict"},
		{engine.ErrRefStale, ExitConflict, "conflict"},
		{engine.ErrRefLocked, ExitConflict, "conflict"},
		{&engine.DeniedError{}, ExitPermission, "permission_denied"},
		{engine.ErrNotLoggedIn, ExitPermission, "permission_denied"},
		{engine.ErrRefNotFound, ExitNotFound, "not_found"},
		{fmt.Errorf("x: %w", engine.ErrRefused), ExitRefused, "refused"},
		{fmt.Errorf("disk on fire"), ExitInternal, "internal"},
	} {
		t.Run(fmt.Sprint(tc.err), func(t *testing.T) {
			if code, name := classify(tc.err); code != tc.code || name != tc.name {
				t.Fatalf("classify = %d %s, want %d %s", code, name, tc.code, tc.name)
			}
		})
	}
}

// TestTerminalCapabilities: bars only on a terminal that can redraw
// (TERM=dumb and NO_COLOR turn them off).
func TestTerminalCapabilities(t *testing.T) {
	for _, tc := range []struct {
		name     string
		terminal bool
		env      map[string]string
		want     bool
	}{
		{"terminal", true, nil, true},
		{"TERM=dumb", true, map[string]string{"TERM": "dumb"}, false},
		{"NO_COLOR", true, map[string]string{"NO_COLOR": "1"}, false},
		{"pipe", false, map[string]string{"TERM": "xterm"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &app{io: &IO{Getenv: func(k string) string { return tc.env[k] }, StderrIsTerminal: tc.terminal}}
			if got := a.progress() != nil; got != tc.want {
				t.Fatalf("progress drawn = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestHumanTimeLocal: human output is in $TZ with its offset.
func TestHumanTimeLocal(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for tz, want := range map[string]string{
		"UTC":           "2026-01-02 03:04 +0000",
		"Europe/Berlin": "2026-01-02 04:04 +0100",
		"Asia/Kolkata":  "2026-01-02 08:34 +0530",
	} {
		a := &app{io: &IO{Getenv: func(k string) string { return map[string]string{"TZ": tz}[k] }}}
		if got := a.humanTime(at); got != want {
			t.Errorf("TZ=%s: %s, want %s", tz, got, want)
		}
	}
}
