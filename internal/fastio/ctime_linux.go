package fastio

import "syscall"

// ctimeNanos is a stat's change time in nanoseconds.
func ctimeNanos(st *syscall.Stat_t) int64 { return st.Ctim.Nano() }
