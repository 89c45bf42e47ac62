//go:build !linux

package ignore

import "os"

// rootDir is unused off Linux: every read takes the portable path.
type rootDir struct{}

func openRootDir(*os.Root) *rootDir { return nil }

func (*rootDir) readFast(string) (data []byte, ok, large bool) { return nil, false, false }
