// Package testexe writes executables for tests that run them while other
// tests of the same process start processes.
//
// Why it exists: a file written by this process and executed right after
// can fail with "text file busy" (ETXTBSY) when another goroutine forked
// while the file was open for writing: the child holds a copy of the
// descriptor until it execs, and Linux refuses to execute a file open for
// writing (golang.org/issue/22315). A fresh-clone run of .ci/run failed
// so (TestHandOffToFull: "fork/exec …/tv: text file busy").
// Write holds syscall.ForkLock for writing while the file is open, so no
// process starts in between: every fork takes it for reading.
package testexe

import (
	"os"
	"syscall"
	"testing"
)

// Write writes data to path as an executable (mode 0o755, replacing any
// file there) and fails the test on error.
func Write(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := write(path, data); err != nil {
		t.Fatal(err)
	}
}

// Copy copies the executable src to dst, as Write.
func Copy(t testing.TB, dst, src string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	Write(t, dst, data)
}

func write(path string, data []byte) error {
	syscall.ForkLock.Lock()
	defer syscall.ForkLock.Unlock()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
