package hugeheap

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// thpEligible returns the THPeligible field of the mapping holding addr
// in /proc/self/smaps.
func thpEligible(t *testing.T, addr uintptr) string {
	return smapsField(t, addr, "THPeligible:")
}

// smapsField returns the value of field (with its colon) of the mapping
// holding addr in /proc/self/smaps.
func smapsField(t *testing.T, addr uintptr, field string) string {
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
		if v, ok := strings.CutPrefix(line, field); ok && in {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("no mapping with %s holds %#x", field, addr)
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

// TestCollapse checks that the package's init and Advise(true) collapse
// the heap's region around a fresh object into a huge page where the
// system allows huge pages and the kernel has MADV_COLLAPSE (Linux 6.1),
// so the mapping then holds anonymous huge pages; and that under "never"
// nothing is collapsed.
func TestCollapse(t *testing.T) {
	mode, err := os.ReadFile(thpPolicy)
	if err != nil {
		t.Skipf("no transparent huge pages here: %v", err)
	}
	never := bytes.Contains(mode, []byte("[never]"))
	for _, step := range []string{"init", "Advise(true)"} {
		if step != "init" {
			collapseErr.Store(uintptr(notTried))
			Advise(true)
		}
		e := syscall.Errno(collapseErr.Load())
		addr := uintptr(unsafe.Pointer(probe.Load()))
		if never {
			if e != notTried {
				t.Fatalf("%s under THP policy %q collapsed (errno %d)", step, bytes.TrimSpace(mode), e)
			}
			continue
		}
		switch e {
		case 0:
		case syscall.EAGAIN, syscall.ENOMEM:
			t.Skipf("%s: no huge page free to collapse into: %v", step, e)
		case syscall.EINVAL:
			var u syscall.Utsname
			syscall.Uname(&u)
			release := utsString(u.Release[:])
			var major, minor int
			if _, err := fmt.Sscanf(release, "%d.%d", &major, &minor); err == nil && major*100+minor < 601 {
				t.Skipf("kernel %s has no MADV_COLLAPSE (Linux 6.1): %v", release, e)
			}
			t.Fatalf("%s: MADV_COLLAPSE of the heap's region holding %#x refused on kernel %s: %v", step, addr, release, e)
		case notTried:
			t.Fatalf("%s collapsed nothing under THP policy %q", step, bytes.TrimSpace(mode))
		default:
			t.Fatalf("%s: MADV_COLLAPSE of the heap's region holding %#x: %v", step, addr, e)
		}
		if got := smapsField(t, addr, "AnonHugePages:"); got == "0 kB" {
			t.Errorf("%s: after a collapse, the heap's mapping holds AnonHugePages %s", step, got)
		}
	}
}

// notTried is collapseErr's value before any collapse.
const notTried = ^syscall.Errno(0)

// utsString is a NUL-terminated utsname field as a string (int8 or
// uint8, by architecture).
func utsString[T int8 | uint8](b []T) string {
	var s []byte
	for _, c := range b {
		if c == 0 {
			break
		}
		s = append(s, byte(c))
	}
	return string(s)
}
