package tvcmd

import (
	"fmt"
	"time"

	"github.com/thalix/tv/engine"
)

// fancyStderr reports whether stderr may carry bars and escape sequences.
func (a *app) fancyStderr() bool {
	return a.io.StderrIsTerminal && a.io.Getenv("TERM") != "dumb" && a.io.Getenv("NO_COLOR") == ""
}

// humanTime shows t in local time ($TZ when set) with the zone offset.
func (a *app) humanTime(t time.Time) string {
	loc := time.Local
	if tz := a.io.Getenv("TZ"); tz != "" {
		if l, err := time.LoadLocation(tz); err == nil {
			loc = l
		}
	}
	return t.In(loc).Format("2006-01-02 15:04 -0700")
}

// progressInterval throttles progress redraws.
const progressInterval = 100 * time.Millisecond

// progress returns a progress bar drawer for stderr when stderr is a
// terminal that can redraw a line (TERM is not "dumb"), NO_COLOR is unset
// and --json is off; otherwise nil (no progress output).
func (a *app) progress() engine.ProgressFunc {
	if !a.fancyStderr() || a.json {
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
