package fastio

import "golang.org/x/sys/unix"

// sysFstatat is fstatat's number here (amd64 names it newfstatat).
const sysFstatat = unix.SYS_NEWFSTATAT
