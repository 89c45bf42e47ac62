package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/thalix/tv/mcptools/mcpkit"
)

func executeBashSpec() mcpkit.Spec {
	return mcpkit.Spec{
		Name:  "execute_bash",
		Title: "Run bash command",
		Description: fmt.Sprintf("Runs `bash -c command` in a workspace (or its workspace-relative cwd), in its own process group; when bash exits, and at the timeout (default %d s, range %d-%d), the whole group is killed: background jobs do not outlive the command (setsid escapes this). ", DefaultTimeoutSeconds, MinTimeoutSeconds, MaxTimeoutSeconds) +
			fmt.Sprintf("Combined stdout/stderr is capped at %d bytes (MaxBashOutputBytes), keeping head and tail with a marker where cut. Command at most %d bytes. A nonzero exit is an error unless allow_nonzero_exit. ", MaxBashOutputBytes, MaxCommandBytes) +
			"Not a sandbox: the command can reach anything the server's user can. Obeys the branch gate (--require-branch).",
		Input: mcpkit.Object(mcpkit.Schema{
			"command":            mcpkit.With(mcpkit.Str("bash command line"), "minLength", 1, "maxLength", MaxCommandBytes),
			"workspace":          workspaceArg(),
			"cwd":                mcpkit.With(mcpkit.Str("working directory relative to the workspace root (default .)"), "default", "."),
			"timeout_seconds":    mcpkit.With(mcpkit.Int("seconds before the process group is killed, 1-45 (default 30)"), "minimum", MinTimeoutSeconds, "maximum", MaxTimeoutSeconds, "default", DefaultTimeoutSeconds),
			"allow_nonzero_exit": mcpkit.With(mcpkit.Bool("a nonzero exit status is not an error (default false)"), "default", false),
		}, "command"),
		Data: mcpkit.OpenObject(mcpkit.Schema{
			"exit_code":   mcpkit.Int("exit status; 128+signal when killed by a signal"),
			"output":      mcpkit.Str("combined stdout and stderr"),
			"truncated":   mcpkit.Bool("output was cut to MaxBashOutputBytes (head and tail kept)"),
			"timed_out":   mcpkit.Bool("the timeout killed the process group"),
			"duration_ms": mcpkit.Int("wall time in milliseconds"),
		}, "exit_code", "output", "truncated", "timed_out", "duration_ms"),
		Workspace:   workspaceRefSchema(),
		Annotations: mcpkit.Annotations{ReadOnly: false, Destructive: true, Idempotent: false, OpenWorld: true},
		Gated:       true,
	}
}

type executeBashArgs struct {
	Command          string `json:"command"`
	Workspace        string `json:"workspace"`
	Cwd              string `json:"cwd"`
	TimeoutSeconds   *int   `json:"timeout_seconds"`
	AllowNonzeroExit bool   `json:"allow_nonzero_exit"`
}

// BashResult is execute_bash's data: the exit status (128+signal when
// killed), combined output, whether it was cut, whether the timeout
// killed the group, and the wall time.
type BashResult struct {
	ExitCode   int    `json:"exit_code"`
	Output     string `json:"output"`
	Truncated  bool   `json:"truncated"`
	TimedOut   bool   `json:"timed_out"`
	DurationMS int64  `json:"duration_ms"`
}

func (l *Local) executeBash(ctx context.Context, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a executeBashArgs
	if err := mcpkit.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	timeout, err := intArg("timeout_seconds", a.TimeoutSeconds, DefaultTimeoutSeconds, MinTimeoutSeconds, MaxTimeoutSeconds)
	if err != nil {
		return nil, err
	}
	switch {
	case strings.TrimSpace(a.Command) == "":
		return nil, fmt.Errorf("%w: command is empty", mcpkit.ErrBadArguments)
	case len(a.Command) > MaxCommandBytes:
		return nil, fmt.Errorf("%w: command is %d bytes, over the %d-byte limit (MaxCommandBytes)", mcpkit.ErrBadArguments, len(a.Command), MaxCommandBytes)
	case strings.IndexByte(a.Command, 0) >= 0:
		return nil, fmt.Errorf("%w: command contains a NUL byte", mcpkit.ErrBadArguments)
	}
	w, f, err := l.openGated(a.Workspace)
	if err != nil {
		return nil, err
	}
	dir, err := f.DirPath(cmp(a.Cwd, "."))
	f.Close()
	if err != nil {
		return nil, err
	}
	d, err := RunBash(ctx, a.Command, dir, time.Duration(timeout)*time.Second, MaxBashOutputBytes)
	if err != nil {
		return nil, err
	}
	res, err := l.success(w, d)
	if err == nil && (d.TimedOut || (d.ExitCode != 0 && !a.AllowNonzeroExit)) {
		res.IsError = true
	}
	return res, err
}

// RunBash runs `bash -c command` in dir in a new process group with stdin
// from /dev/null and stdout and stderr on one pipe. When bash exits, at
// the timeout, or when ctx ends, the whole group is killed (SIGKILL):
// background jobs do not outlive the command (one that called setsid has
// left the group and escapes). Output is then read for at most
// BashDrainTimeout more while anything outside the group still holds the
// pipe open. Output beyond maxOutput bytes keeps its head and tail with a
// marker between.
func RunBash(ctx context.Context, command, dir string, timeout time.Duration, maxOutput int) (*BashResult, error) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		return nil, errors.New("bash is not installed")
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer pr.Close()
	cmd := exec.Command(bash, "-c", command)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, pw, pw
	newProcessGroup(cmd)
	start := time.Now()
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return nil, fmt.Errorf("start bash: %w", err)
	}
	out := &headTail{limit: maxOutput}
	read := make(chan struct{})
	go func() { io.Copy(out, pr); close(read) }()
	exited := make(chan bool, 1)
	go func() { exited <- waitExited(cmd) }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	d := &BashResult{}
	reaped, returned := false, false
	select {
	case reaped = <-exited:
		returned = true
	case <-timer.C:
		d.TimedOut = true
	case <-ctx.Done():
	}
	// The command returned, timed out or was cancelled: its whole process
	// group goes, background jobs included, so nothing it started is left
	// running untracked (a job that called setsid has left the group and
	// escapes this).
	killProcessGroup(cmd)
	if !returned {
		reaped = <-exited
	}
	if !reaped {
		cmd.Wait()
	}
	select {
	case <-read:
	case <-time.After(BashDrainTimeout):
		pr.Close()
		<-read
	}
	d.DurationMS = time.Since(start).Milliseconds()
	d.ExitCode = exitCode(cmd.ProcessState)
	d.Output, d.Truncated = out.String()
	return d, nil
}

func exitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// headTail keeps the first half and the last half of limit bytes written.
type headTail struct {
	limit int
	head  []byte
	ring  []byte
	pos   int // next write position in ring once it is full
	total int64
}

func (h *headTail) Write(p []byte) (int, error) {
	n := len(p)
	h.total += int64(n)
	if room := h.limit/2 - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	size := h.limit - h.limit/2
	for len(p) > 0 {
		if len(h.ring) < size {
			k := min(size-len(h.ring), len(p))
			h.ring = append(h.ring, p[:k]...)
			p = p[k:]
			continue
		}
		if len(p) >= size {
			copy(h.ring, p[len(p)-size:])
			h.pos, p = 0, nil
			continue
		}
		k := copy(h.ring[h.pos:], p)
		p = p[k:]
		h.pos = (h.pos + k) % size
	}
	return n, nil
}

// String returns the kept output (valid UTF-8) and whether bytes were cut.
func (h *headTail) String() (string, bool) {
	tail := append(append([]byte(nil), h.ring[h.pos:]...), h.ring[:h.pos]...)
	kept := int64(len(h.head) + len(tail))
	if h.total <= kept {
		return strings.ToValidUTF8(string(h.head)+string(tail), "\uFFFD"), false
	}
	marker := fmt.Sprintf("\n[… %d bytes omitted: output over the %d-byte limit (MaxBashOutputBytes); head and tail kept …]\n", h.total-kept, h.limit)
	return strings.ToValidUTF8(string(h.head), "\uFFFD") + marker + strings.ToValidUTF8(string(tail), "\uFFFD"), true
}
