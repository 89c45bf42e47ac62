package jsonquote

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// marshal is encoding/json's encoding of s, the reference.
func marshal(t testing.TB, s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAppend(t *testing.T) {
	long := strings.Repeat("plain text, eight+ bytes ", 40)
	cases := []struct{ name, s string }{
		{"empty", ""},
		{"short plain", "abc"},
		{"word plain", "abcdefgh"},
		{"long plain", long},
		{"quote", `say "hi"`},
		{"backslash", `C:\dir\file`},
		{"html", "<a href='x'>&amp;</a>"},
		{"controls", "\x00\x01\b\f\n\r\t\x1f\x7f"},
		{"every ASCII byte", asciiBytes()},
		{"utf8", "naïve café — 日本語 🙂"},
		{"line separators", "a\u2028b\u2029c\u2027"},
		{"invalid utf8", "ok\xffbad\xc3(\xe2\x28\xa1 end"},
		{"truncated rune at end", "abcdefg\xe2\x80"},
		{"special in every position", specialEverywhere()},
		{"escape after a long plain run", long + "\n" + long + `"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := string(Append([]byte("prefix:"), c.s))
			if want := "prefix:" + marshal(t, c.s); got != want {
				t.Errorf("Append(%q)\n got %s\nwant %s", c.s, got, want)
			}
		})
	}
}

// asciiBytes is every byte below 0x80, in order.
func asciiBytes() string {
	b := make([]byte, 0x80)
	for i := range b {
		b[i] = byte(i)
	}
	return string(b)
}

// specialEverywhere puts each character that needs escaping at every
// offset of a 16-byte plain run, so each lane of a word sees each one.
func specialEverywhere() string {
	var sb strings.Builder
	for _, c := range []string{`"`, `\`, "<", ">", "&", "\n", "\x00", "\x1f", "é", "\u2028", "\xff"} {
		for off := range 16 {
			fmt.Fprintf(&sb, "%s%s%s|", strings.Repeat("x", off), c, strings.Repeat("y", 16-off))
		}
	}
	return sb.String()
}

// TestSpecial checks the word test against the byte test for every byte
// in every lane, with plain and with special neighbours.
func TestSpecial(t *testing.T) {
	for lane := range 8 {
		for c := range 256 {
			for _, fill := range []byte{'a', '"', 0x80} {
				var w [8]byte
				for i := range w {
					w[i] = fill
				}
				w[lane] = byte(c)
				want := false
				for _, b := range w {
					want = want || b >= 0x80 || !plain(b)
				}
				if got := special(load(string(w[:]), 0)) != 0; got != want {
					t.Fatalf("special(% x) = %v, want %v", w, got, want)
				}
			}
		}
	}
}

func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "abc", `a"b\c`, "<>&", "\u2028\u2029", "\xff\xfe", "日本語", strings.Repeat("z", 17) + "\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(Append(nil, s)), marshal(t, s); got != want {
			t.Fatalf("Append(%q)\n got %s\nwant %s", s, got, want)
		}
	})
}

// text is a 7.2 KB file of the shape bench/mcp reads.
func text() string {
	var sb strings.Builder
	for i := range 100 {
		fmt.Fprintf(&sb, "line %04d: the quick brown fox jumps over the lazy dog, again and again\n", i)
	}
	return sb.String()
}

func BenchmarkAppend(b *testing.B) {
	s := text()
	dst := make([]byte, 0, 2*len(s))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		dst = Append(dst[:0], s)
	}
}

func BenchmarkMarshal(b *testing.B) {
	s := text()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if _, err := json.Marshal(s); err != nil {
			b.Fatal(err)
		}
	}
}
