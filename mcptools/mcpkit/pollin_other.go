//go:build !unix

package mcpkit

import "io"

// pollableInput returns in as it is (see pollin_unix.go).
func pollableInput(in io.Reader) (io.Reader, func()) { return in, func() {} }

// pollableOutput returns out as it is (see pollin_unix.go).
func pollableOutput(out io.Writer) (io.Writer, func()) { return out, func() {} }
