package mcpdoctor

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// process is a launched server: its pipes, the tail of its stderr, and a
// channel closed once it has been reaped.
type process struct {
	cmd     *exec.Cmd
	stdin   *pipeWriter // write end of the server's stdin
	stdout  *pipeReader // read end of the server's stdout
	gone    atomic.Bool // the server closed its end of a pipe
	stderr  *tail
	done    chan struct{} // closed after Wait returned
	waitErr error         // Wait's result, valid after done
}

// launch starts t's command with its own stdin/stdout pipes, stderr kept
// in a bounded tail, in a process group of its own.
func launch(t Target) (*process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd := exec.Command(t.Command, t.Args...)
	cmd.Env = t.Env
	cmd.Dir = t.Dir
	p := &process{cmd: cmd, stderr: &tail{max: MaxStderrBytes}, done: make(chan struct{})}
	p.stdin, p.stdout = &pipeWriter{File: inW, gone: &p.gone}, &pipeReader{File: outR, gone: &p.gone}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, p.stderr
	cmd.WaitDelay = WaitDelay
	setGroup(cmd)
	err = cmd.Start()
	inR.Close() // the child has its own copies now
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process ended within d, without killing it.
func (p *process) exited(d time.Duration) bool {
	if d <= 0 {
		select {
		case <-p.done:
			return true
		default:
			return false
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	}
}

// status describes how the process ended ("exit status 3", "signal:
// killed"); call it only after done is closed.
func (p *process) status() string {
	if p.waitErr == nil {
		return "exit status 0"
	}
	if ee, ok := p.waitErr.(*exec.ExitError); ok {
		return ee.ProcessState.String()
	}
	return p.waitErr.Error()
}

// stop ends the process on every path: it closes the server's stdin (the
// polite way to end a stdio MCP server), gives it grace to exit, then kills
// its whole process group and reaps it. It returns only once the process
// has been waited for. The group is killed even after a clean exit, so no
// child the server left behind survives the check.
func (p *process) stop(grace time.Duration) {
	p.stdin.Close()
	p.exited(grace)
	killGroup(p.cmd)
	<-p.done
	p.stdout.Close()
}

// tail is an io.Writer that keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
	cut bool
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	return len(b), nil
}

// String returns the kept bytes, marked when earlier output was dropped.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cut {
		return fmt.Sprintf("[… only the last %d bytes kept]\n%s", t.max, t.buf)
	}
	return string(t.buf)
}

// pipeReader is the server's stdout and pipeWriter its stdin; they note
// when the server closed its end (end of file on stdout, a broken pipe on
// stdin), which tells "the server went away" from "the server sent
// something the client could not decode".
type pipeReader struct {
	*os.File
	gone *atomic.Bool
}

func (r *pipeReader) Read(b []byte) (int, error) {
	n, err := r.File.Read(b)
	if errors.Is(err, io.EOF) {
		r.gone.Store(true)
	}
	return n, err
}

type pipeWriter struct {
	*os.File
	gone *atomic.Bool
}

func (w *pipeWriter) Write(b []byte) (int, error) {
	n, err := w.File.Write(b)
	if errors.Is(err, syscall.EPIPE) {
		w.gone.Store(true)
	}
	return n, err
}
