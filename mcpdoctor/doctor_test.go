//go:build unix

package mcpdoctor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	fakeOnce sync.Once
	fakeBin  string
	fakeErr  error
)

// fakeServer builds testdata/fakeserver once per test run.
func fakeServer(t *testing.T) string {
	t.Helper()
	fakeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpdoctor-fake-")
		if err != nil {
			fakeErr = err
			return
		}
		fakeBin = filepath.Join(dir, "fakeserver")
		if out, err := exec.Command("go", "build", "-o", fakeBin, "./testdata/fakeserver").CombinedOutput(); err != nil {
			fakeErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if fakeErr != nil {
		t.Fatal(fakeErr)
	}
	return fakeBin
}

func fakeTarget(t *testing.T, mode string, extraEnv ...string) Target {
	return Target{
		Label:   "fake",
		Command: fakeServer(t),
		Args:    []string{"mcp", "serve"},
		Env:     append([]string{"FAKEMCP_MODE=" + mode, "PATH=" + os.Getenv("PATH")}, extraEnv...),
		Call:    "vault_whoami",
		Timeout: 20 * time.Second,
	}
}

// TestDoctorCheckFakeServer drives Check against a server that misbehaves in one
// way per case and checks the failure kind and the reason it reports.
func TestDoctorCheckFakeServer(t *testing.T) {
	cases := []struct {
		mode    string
		call    string
		failure string   // "" means OK
		want    []string // substrings of Reason, Problems or Stderr
	}{
		{mode: "ok"},
		{mode: "ok", call: "workspace_list"},
		{mode: "paged"},
		{mode: "exit", failure: FailExited, want: []string{"exited during initialize", "exit status 3", "fake: boom"}},
		{mode: "close-stdin", failure: FailExited, want: []string{"exited during initialize", "exit status 5", "fake: closed stdin"}},
		{mode: "exit-after-init", failure: FailExited, want: []string{"during tools/list", "exit status 4", "leaving after initialize"}},
		{mode: "garbage", failure: FailProtocol, want: []string{"initialize"}},
		{mode: "bad-schema", failure: FailInvalidTool, want: []string{"workspace_list: inputSchema: not a valid JSON Schema", "minimum"}},
		{mode: "bad-output-schema", failure: FailInvalidTool, want: []string{"workspace_list: outputSchema: not a valid JSON Schema", "required"}},
		{mode: "bad-name", failure: FailInvalidTool, want: []string{`"workspace list" does not match ^[a-zA-Z0-9_-]{1,64}$`}},
		{mode: "dup-name", failure: FailInvalidTool, want: []string{"vault_whoami: the name is listed more than once"}},
		{mode: "open-input", failure: FailInvalidTool, want: []string{`workspace_list: inputSchema: "additionalProperties" is not false`}},
		{mode: "no-annotations", failure: FailInvalidTool, want: []string{"workspace_list: annotations are missing"}},
		{mode: "partial-annotations", failure: FailInvalidTool, want: []string{"annotations do not set readOnlyHint to a boolean"}},
		{mode: "refuse", failure: FailRefused, want: []string{"vault_whoami refused the call: not logged in"}},
		{mode: "bad-output", failure: FailInvalidTool, want: []string{"structuredContent does not match the output schema", "at '/user'"}},
		{mode: "no-structured", failure: FailInvalidTool, want: []string{"no structuredContent"}},
		{mode: "rpc-error", failure: FailProtocol, want: []string{"JSON-RPC error -32603", "internal error in vault_whoami"}},
		{mode: "ok", call: "no_such_tool", failure: FailInvalidTool, want: []string{"does not offer the tool no_such_tool"}},
	}
	for _, c := range cases {
		name := c.mode
		if c.call != "" {
			name += "/" + c.call
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tg := fakeTarget(t, c.mode)
			if c.call != "" {
				tg.Call = c.call
			}
			res := Check(context.Background(), tg)
			t.Logf("%s: %s %v", res.Failure, res.Reason, res.Problems)
			if c.failure == "" {
				if !res.OK || res.Err != nil {
					t.Fatalf("want OK, got %s: %v\nstderr: %s", res.Failure, res.Err, res.Stderr)
				}
				if !slices.Equal(res.Tools, []string{"vault_whoami", "workspace_list"}) {
					t.Errorf("tools %v", res.Tools)
				}
				if res.Timings.Initialize <= 0 || res.Timings.List <= 0 || res.Timings.Call <= 0 {
					t.Errorf("timings not recorded: %+v", res.Timings)
				}
				if res.ServerName != "fake" || res.Protocol != ProtocolVersion {
					t.Errorf("server %q protocol %q", res.ServerName, res.Protocol)
				}
				return
			}
			if res.OK || res.Failure != c.failure {
				t.Fatalf("want failure %s, got ok=%v %q: %v\nstderr: %s", c.failure, res.OK, res.Failure, res.Err, res.Stderr)
			}
			if !errors.Is(res.Err, sentinel(c.failure)) {
				t.Errorf("Err %v does not wrap the %s sentinel", res.Err, c.failure)
			}
			all := res.Reason + "\n" + res.Stderr
			for _, p := range res.Problems {
				all += "\n" + p.String()
			}
			for _, w := range c.want {
				if !strings.Contains(all, w) {
					t.Errorf("report lacks %q:\n%s", w, all)
				}
			}
		})
	}
}

func sentinel(kind string) error {
	for _, k := range failureKinds {
		if k.kind == kind {
			return k.err
		}
	}
	return nil
}

// TestDoctorCheckRequireTools: with RequireTools an empty list fails; without,
// it passes when nothing is called.
func TestDoctorCheckRequireTools(t *testing.T) {
	tg := fakeTarget(t, "no-tools")
	tg.Call = ""
	if res := Check(context.Background(), tg); !res.OK || len(res.Tools) != 0 {
		t.Fatalf("without RequireTools: %s %v", res.Failure, res.Err)
	}
	tg.RequireTools = true
	res := Check(context.Background(), tg)
	if res.Failure != FailInvalidTool || !strings.Contains(res.Reason, "the server lists no tools") {
		t.Fatalf("got %s: %v", res.Failure, res.Err)
	}
}

// TestDoctorCheckMissingCommand: a command that does not exist fails to start.
func TestDoctorCheckMissingCommand(t *testing.T) {
	res := Check(context.Background(), Target{Command: filepath.Join(t.TempDir(), "nope"), Call: "x"})
	if res.OK || res.Failure != FailStart || !errors.Is(res.Err, ErrStart) {
		t.Fatalf("got %s: %v", res.Failure, res.Err)
	}
	if !strings.Contains(res.Reason, "no such file") {
		t.Errorf("reason %q", res.Reason)
	}
}

// TestDoctorCheckTimeoutKillsGroup: a server that never answers (and started a
// child of its own) times out; when Check returns, both are gone.
func TestDoctorCheckTimeoutKillsGroup(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pids")
	tg := fakeTarget(t, "hang", "FAKEMCP_PIDFILE="+pidfile)
	tg.Timeout = time.Second
	start := time.Now()
	res := Check(context.Background(), tg)
	took := time.Since(start)
	if res.Failure != FailTimeout || !strings.Contains(res.Reason, "no answer to initialize within 1s") {
		t.Fatalf("got %s: %v", res.Failure, res.Err)
	}
	if took > tg.Timeout+WaitDelay+time.Second {
		t.Errorf("Check took %v with a 1s timeout", took)
	}
	if !strings.Contains(res.Stderr, "fake: hanging") {
		t.Errorf("stderr %q", res.Stderr)
	}
	var pid, child int
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Sscan(string(b), &pid, &child)
	if pid == 0 || child == 0 {
		t.Fatalf("pid file %q", b)
	}
	// The server was reaped by Check; the orphaned child is reaped by init
	// (or whoever adopts it), so give that a moment — a zombie counts as dead.
	for _, p := range []int{pid, child} {
		if !gone(p, 3*time.Second) {
			t.Errorf("process %d is still alive after Check returned", p)
		}
	}
}

// TestDoctorCheckLingeringServerKilled: a server that ignores the end of its
// stdin is killed after CloseGrace, and the check still passes.
func TestDoctorCheckLingeringServerKilled(t *testing.T) {
	start := time.Now()
	res := Check(context.Background(), fakeTarget(t, "linger"))
	if !res.OK {
		t.Fatalf("got %s: %v", res.Failure, res.Err)
	}
	if took := time.Since(start); took > CloseGrace+WaitDelay+3*time.Second {
		t.Errorf("Check took %v", took)
	}
}

// TestDoctorCheckCancelled: a cancelled context ends the check as interrupted,
// and the server is reaped.
func TestDoctorCheckCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pidfile := filepath.Join(t.TempDir(), "pids")
	go func() {
		// Cancel once the server has written its pid (not merely created
		// the file: on a loaded machine the test saw it empty, or not yet
		// there after 2 s, and read pid 0).
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			var pid int
			if b, err := os.ReadFile(pidfile); err == nil {
				if fmt.Sscan(string(b), &pid); pid > 0 {
					break
				}
			}
		}
		cancel()
	}()
	res := Check(ctx, fakeTarget(t, "hang", "FAKEMCP_PIDFILE="+pidfile))
	if res.Failure != FailInterrupted {
		t.Fatalf("got %s: %v", res.Failure, res.Err)
	}
	var pid int
	b, _ := os.ReadFile(pidfile)
	fmt.Sscan(string(b), &pid)
	if pid == 0 || !gone(pid, 3*time.Second) {
		t.Errorf("server %d not gone", pid)
	}
}

// gone reports whether process pid ends (or is a zombie) within d.
func gone(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			if f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:])); len(f) > 0 && f[0] == "Z" {
				return true
			}
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}
