package jsonspan

import "testing"

func TestSkip(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		at, want int
		skip     func([]byte, int) int
	}{
		{"space", " \t\r\nx", 0, 4, SkipSpace},
		{"space at end", "  ", 0, 2, SkipSpace},
		{"string", `"a\"b\\" ,`, 0, 8, SkipString},
		{"unterminated string", `"abc`, 0, 4, SkipString},
		{"object", `{"a":[1,{"b":"}"}],"c":"]"} x`, 0, 27, SkipValue},
		{"array", `[[],{}] ,`, 0, 7, SkipValue},
		{"number", `-1.5e3,`, 0, 6, SkipValue},
		{"literal before space", `true }`, 0, 4, SkipValue},
		{"literal at end", `null`, 0, 4, SkipValue},
		{"value inside", `{"k": "v"}`, 6, 9, SkipValue},
		{"past the end", `1`, 1, 1, SkipValue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.skip([]byte(tc.in), tc.at); got != tc.want {
				t.Errorf("skip(%q, %d) = %d, want %d", tc.in, tc.at, got, tc.want)
			}
		})
	}
}
