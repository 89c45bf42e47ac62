package wsfs

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/thalix/tv/internal/fastio"
)

// readHeld is ReadFile of name directly in the held directory d, with the
// same checks and messages as openRegular and ReadFile: an lstat (no
// following) must show a regular file, the open is O_NOFOLLOW|O_NONBLOCK,
// and fstat must show the same regular file. The system calls are
// fastio's on d's descriptor (no os.File per read), and the read stops at
// the size fstat reported, where a regular file ends, instead of reading
// once more to see end of file. ok is false when d cannot be used; the
// caller then reads the usual way.
func readHeld(d *os.File, name, clean string, max int64) (b []byte, st fs.FileInfo, err error, ok bool) {
	rc, cerr := d.SyscallConn()
	if cerr != nil {
		return nil, nil, nil, false
	}
	cerr = rc.Control(func(dirfd uintptr) { b, st, err = readAt(int(dirfd), name, clean, max) })
	if cerr != nil {
		return nil, nil, nil, false
	}
	return b, st, err, true
}

func readAt(dirfd int, name, clean string, max int64) ([]byte, fs.FileInfo, error) {
	lst, err := fastio.LstatIn(dirfd, name)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", Show(clean), statErr(name, err))
	}
	if err := checkRegular(lst, clean); err != nil {
		return nil, nil, err
	}
	fh, err := fastio.OpenIn(dirfd, name)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: opening %s: %v", ErrChanged, Show(clean), err)
	}
	defer fh.Close()
	st, err := fh.Info()
	if err != nil || !st.Same(lst) || !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%w: %s was replaced while it was being opened", ErrChanged, Show(clean))
	}
	if err := checkSize(st, clean, max); err != nil {
		return nil, nil, err
	}
	b, err := fh.ReadSized(st.Size(), max)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", Show(clean), err)
	}
	if err := checkGrown(b, clean, max); err != nil {
		return nil, nil, err
	}
	return b, st, nil
}
