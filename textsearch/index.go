package textsearch

import "bytes"

// litFinder finds a literal like bytes.Index, but first looks for the
// literal's rarest byte with bytes.IndexByte (SIMD, far faster than
// bytes.Index when the literal starts with a common byte such as 'f' in
// "func ...") and verifies the literal around it. If the rare byte turns
// out to be common in the input, it falls back to bytes.Index.
type litFinder struct {
	lit  []byte
	rare byte // the literal's rarest byte
	off  int  // its offset in lit
}

func newLitFinder(lit []byte) *litFinder {
	f := &litFinder{lit: lit}
	for i, c := range lit {
		if byteRank[c] < byteRank[f.rare] || i == 0 {
			f.rare, f.off = c, i
		}
	}
	return f
}

// index returns the index of the first instance of the literal in s, or -1.
func (f *litFinder) index(s []byte) int {
	n := len(f.lit)
	if n <= 1 || f.off == 0 {
		return bytes.Index(s, f.lit)
	}
	i, fails := f.off, 0
	for i < len(s) {
		j := bytes.IndexByte(s[i:], f.rare)
		if j < 0 {
			return -1
		}
		j += i
		start := j - f.off
		if start+n > len(s) {
			return -1
		}
		if bytes.Equal(s[start:start+n], f.lit) {
			return start
		}
		// Like bytes.Index: tolerate about one false candidate per 16
		// bytes scanned, then switch to bytes.Index for the rest.
		fails++
		if fails > 4+j>>4 {
			k := bytes.Index(s[start+1:], f.lit)
			if k < 0 {
				return -1
			}
			return start + 1 + k
		}
		i = j + 1
	}
	return -1
}

// byteRank orders bytes by how often they occur in source code and text
// (0 = rarest), measured over the Go distribution's src and doc trees.
var byteRank = [256]uint8{
	0, 37, 38, 39, 40, 41, 48, 46, 1, 252, 248, 2, 3, 70, 4, 5, // 0x00-0x0f
	42, 6, 7, 8, 43, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, // 0x10-0x1f
	255, 181, 226, 163, 166, 172, 182, 173, 233, 232, 186, 180, 243, 187, 236, 231, // 0x20-0x2f
	250, 234, 227, 213, 219, 199, 211, 191, 208, 194, 229, 183, 178, 224, 176, 158, // 0x30-0x3f
	157, 218, 192, 206, 203, 216, 198, 185, 184, 207, 164, 170, 200, 202, 195, 209, // 0x40-0x4f
	204, 171, 210, 223, 220, 188, 193, 179, 197, 175, 165, 190, 205, 189, 160, 221, // 0x50-0x5f
	167, 247, 222, 240, 238, 254, 239, 228, 225, 246, 168, 201, 241, 230, 249, 244, // 0x60-0x6f
	235, 169, 251, 245, 253, 237, 212, 196, 242, 217, 174, 215, 177, 214, 156, 20, // 0x70-0x7f
	155, 144, 154, 148, 126, 146, 139, 97, 149, 133, 137, 90, 111, 77, 98, 72, // 0x80-0x8f
	109, 91, 95, 114, 138, 140, 85, 128, 123, 135, 67, 71, 134, 141, 105, 78, // 0x90-0x9f
	89, 99, 88, 96, 131, 127, 107, 113, 94, 136, 110, 119, 124, 117, 100, 82, // 0xa0-0xaf
	86, 129, 125, 120, 93, 101, 87, 161, 92, 145, 112, 106, 142, 116, 132, 84, // 0xb0-0xbf
	21, 22, 162, 122, 61, 59, 51, 68, 58, 83, 81, 62, 121, 80, 152, 104, // 0xc0-0xcf
	73, 66, 50, 53, 55, 75, 76, 79, 150, 153, 64, 65, 56, 44, 49, 52, // 0xd0-0xdf
	103, 147, 159, 151, 102, 130, 143, 115, 108, 74, 69, 57, 60, 54, 45, 63, // 0xe0-0xef
	118, 23, 24, 25, 47, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, // 0xf0-0xff
}
