package main

import (
	"fmt"
	"time"

	"github.com/thalix/tv/engine"
)

// progressInterval throttles progress redraws.
const progressInterval = 100 * time.Millisecond

// progress returns a progress bar drawer for stderr when stderr is a
// terminal and --json is off; otherwise nil (no progress output).
func (a *app) progress() engine.ProgressFunc {
	if !a.io.StderrIsTerminal || a.json {
		return nil
	}
	var last time.Time
	return func(phase string, done, total int64) {
		now := time.Now()
		if done < total && now.Sub(last) < progressInterval {
			return
		}
		last = now
		const width = 30
		filled := 0
		if total > 0 {
			filled = int(done * width / total)
		}
		bar := make([]byte, width)
		for i := range bar {
			bar[i] = ' '
			if i < filled {
				bar[i] = '='
			}
		}
		fmt.Fprintf(a.io.Stderr, "\r%-9s [%s] %d/%d", phase, bar, done, total)
		if done >= total {
			fmt.Fprint(a.io.Stderr, "\r\033[K")
		}
	}
}
