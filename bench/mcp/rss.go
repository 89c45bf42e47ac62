package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// rssFlat makes calls sequential read calls to the tv server with the
// lean client and samples the server's resident set (VmRSS, Linux) after
// the warm-up and at every tenth of the run. It prints the samples and
// reports whether the last one is within ±20% of the first (issue 14:
// 10,000 sequential calls, RSS flat).
func rssFlat(s server, opt options, calls int) (bool, error) {
	c, err := startLean(s, opt.protocol)
	if err != nil {
		return false, err
	}
	defer c.close()
	for range opt.warm {
		if _, err := c.check(s.tool, s.args, opt.want); err != nil {
			return false, err
		}
	}
	first, err := vmRSS(c.cmd.Process.Pid)
	if err != nil {
		return false, err
	}
	samples := []int{first}
	for i := 1; i <= calls; i++ {
		if _, err := c.check(s.tool, s.args, opt.want); err != nil {
			return false, err
		}
		if i%(max(calls/10, 1)) == 0 {
			kb, err := vmRSS(c.cmd.Process.Pid)
			if err != nil {
				return false, err
			}
			samples = append(samples, kb)
		}
	}
	last := samples[len(samples)-1]
	ratio := float64(last) / float64(first)
	fmt.Printf("\nRSS of %s over %d sequential read calls (KiB, after warm-up then every %d calls): %v; last/first %.3f (target 0.8–1.2)\n", s.name, calls, max(calls/10, 1), samples, ratio)
	return ratio >= 0.8 && ratio <= 1.2, nil
}

// vmRSS returns a process's resident set in KiB.
func vmRSS(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}
