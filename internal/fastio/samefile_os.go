//go:build !(linux && (amd64 || arm64 || riscv64 || loong64))

package fastio

import "os"

func sameFile(path string, fi os.FileInfo) bool {
	got, err := os.Stat(path)
	return err == nil && os.SameFile(got, fi)
}
