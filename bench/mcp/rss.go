package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// rssWarm is how many read calls precede the RSS check's first sample:
// the heap grows to its collection target over the first few hundred
// calls (about 22 MiB after 50 calls, 33 MiB from call ~500 on, flat from
// there on the bench machine); the check is for growth after that.
const rssWarm = 1000

// rssFlat makes rssWarm, then calls, sequential read calls to the tv
// server with the lean client and samples the server's resident set
// (VmRSS, Linux) after the warm-up and at every tenth of the run. It
// prints the samples and reports whether every one is within ±20% of the
// first (issue 14: 10,000 sequential calls, RSS flat).
func rssFlat(s server, opt options, calls int) (bool, error) {
	c, err := startLean(s, opt.protocol)
	if err != nil {
		return false, err
	}
	defer c.close()
	for range rssWarm {
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
	lo, hi := first, first
	for _, kb := range samples {
		lo, hi = min(lo, kb), max(hi, kb)
	}
	minRatio, maxRatio := float64(lo)/float64(first), float64(hi)/float64(first)
	fmt.Printf("\nRSS of %s over %d sequential read calls (KiB; after %d warm-up calls, then every %d calls): %v; min/first %.3f, max/first %.3f (target 0.8–1.2)\n", s.name, calls, rssWarm, max(calls/10, 1), samples, minRatio, maxRatio)
	return minRatio >= 0.8 && maxRatio <= 1.2, nil
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
