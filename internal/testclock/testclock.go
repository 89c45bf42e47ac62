// Package testclock is a clock only a test moves, for code that takes its
// clock as a func() time.Time (a scope cache's TTL, timestamps), so a test
// steps past a duration instead of sleeping through it. Safe for the code
// under test to read from other goroutines.
package testclock

import (
	"sync"
	"time"
)

// Clock is a manually advanced clock.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// New returns a clock standing at the current time.
func New() *Clock { return &Clock{now: time.Now()} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}
