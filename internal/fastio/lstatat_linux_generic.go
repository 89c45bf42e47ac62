//go:build linux && (arm64 || riscv64 || loong64)

package fastio

import "golang.org/x/sys/unix"

// sysFstatat is fstatat's number on the 64-bit architectures that have no
// older stat calls.
const sysFstatat = unix.SYS_FSTATAT
