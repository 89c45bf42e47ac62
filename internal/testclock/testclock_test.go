package testclock

import (
	"testing"
	"time"
)

func TestAdvance(t *testing.T) {
	c := New()
	t0 := c.Now()
	if !c.Now().Equal(t0) {
		t.Fatal("the clock moved by itself")
	}
	c.Advance(time.Second)
	if got := c.Now().Sub(t0); got != time.Second {
		t.Fatalf("advanced %v, want 1s", got)
	}
}
