package hugeheap

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// thpEligible returns the THPeligible field of the mapping holding addr
// in /proc/self/smaps.
func thpEligible(t *testing.T, addr uintptr) string {
	t.Helper()
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	in := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := vmaRange(line); ok {
			in = lo <= addr && addr < hi
			continue
		}
		if v, ok := strings.CutPrefix(line, "THPeligible:"); ok && in {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("no mapping with THPeligible holds %#x", addr)
	return ""
}

// vmaRange parses a smaps header line "lo-hi perms …".
func vmaRange(line string) (lo, hi uintptr, ok bool) {
	r, _, found := strings.Cut(line, " ")
	a, b, dash := strings.Cut(r, "-")
	if !found || !dash {
		return 0, 0, false
	}
	l, err1 := strconv.ParseUint(a, 16, 64)
	h, err2 := strconv.ParseUint(b, 16, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return uintptr(l), uintptr(h), true
}

// TestAdvise checks that the heap's mapping becomes eligible for huge
// pages on Advise(true) (unless the system turned them off) and not on
// Advise(false).
func TestAdvise(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		t.Skipf("no transparent huge pages here: %v", err)
	}
	Advise(false)
	addr := uintptr(unsafe.Pointer(probe.Load()))
	if got := thpEligible(t, addr); got != "0" {
		t.Errorf("after Advise(false): THPeligible %s, want 0", got)
	}
	Advise(true)
	want := "1"
	if bytes.Contains(mode, []byte("[never]")) {
		want = "0"
	}
	if got := thpEligible(t, uintptr(unsafe.Pointer(probe.Load()))); got != want {
		t.Errorf("after Advise(true) with THP %s: THPeligible %s, want %s", bytes.TrimSpace(mode), got, want)
	}
}
