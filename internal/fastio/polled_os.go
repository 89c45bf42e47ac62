//go:build !(linux && (amd64 || arm64 || riscv64 || loong64))

package fastio

// Read reads through *os.File (no raw system calls on this platform).
func (p *PolledFile) Read(b []byte) (int, error) { return p.f.Read(b) }

// Write writes through *os.File.
func (p *PolledFile) Write(b []byte) (int, error) { return p.f.Write(b) }
