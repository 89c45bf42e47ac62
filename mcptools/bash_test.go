package mcptools

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestBashExitAndOutput(t *testing.T) {
	d, err := RunBash(context.Background(), "echo out; echo err >&2; exit 3", t.TempDir(), 5*time.Second, MaxBashOutputBytes)
	if err != nil {
		t.Fatal(err)
	}
	if d.ExitCode != 3 || d.TimedOut || d.Output != "out\nerr\n" {
		t.Fatalf("%+v", d)
	}
	// A background process holding the pipe does not hold the call.
	start := time.Now()
	d, err = RunBash(context.Background(), "(sleep 3; echo late) & echo now", t.TempDir(), 10*time.Second, MaxBashOutputBytes)
	if err != nil || d.Output != "now\n" || time.Since(start) > 2*time.Second {
		t.Fatalf("%+v %v after %v", d, err, time.Since(start))
	}
}

func TestBashOutputCap(t *testing.T) {
	d, err := RunBash(context.Background(), "echo HEAD; head -c 3000000 /dev/zero | tr '\\0' x; echo; echo TAIL", t.TempDir(), 20*time.Second, MaxBashOutputBytes)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Truncated || !strings.HasPrefix(d.Output, "HEAD\n") || !strings.HasSuffix(d.Output, "TAIL\n") || !strings.Contains(d.Output, "bytes omitted") {
		t.Fatalf("truncated=%v len=%d", d.Truncated, len(d.Output))
	}
	if len(d.Output) > MaxBashOutputBytes+200 {
		t.Fatalf("output %d bytes", len(d.Output))
	}
}

func TestHeadTail(t *testing.T) {
	h := &headTail{limit: 10}
	for _, s := range []string{"0123", "4567", "89abcdef", "ghij"} {
		h.Write([]byte(s))
	}
	got, trunc := h.String()
	if !trunc || !strings.HasPrefix(got, "01234\n[… 10 bytes omitted") || !strings.HasSuffix(got, "…]\nfghij") {
		t.Fatalf("%q", got)
	}
	h = &headTail{limit: 10}
	h.Write([]byte("0123456789"))
	if got, trunc := h.String(); trunc || got != "0123456789" {
		t.Fatalf("%q %v", got, trunc)
	}
}
