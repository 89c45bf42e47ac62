package wsfs

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/thalix/tv/atomicfile"
)

// FS is a workspace directory opened for path-safe access. It holds an
// [os.Root] on the directory; every method goes through it. An FS is safe
// for concurrent use. Close it when done.
type FS struct {
	dir  string
	root *os.Root
	held *os.File // the root directory itself, from Hold; nil until then
}

// Open opens the workspace directory dir (its own path may contain
// symlinks; paths beneath it may not).
func Open(dir string) (*FS, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: workspace root %s", ErrMissing, dir)
		}
		return nil, fmt.Errorf("open workspace root %s: %w", dir, err)
	}
	return &FS{dir: dir, root: r}, nil
}

// Close releases the root (and the directory Hold opened).
func (f *FS) Close() error {
	if f.held != nil {
		f.held.Close()
	}
	return f.root.Close()
}

// Hold opens the workspace directory itself and keeps it open until
// Close, for an FS that serves many reads (tv mcp local's launch
// workspace): ReadFile of a file directly in the directory then makes its
// system calls on that descriptor (readHeld) rather than through an
// os.File per read — on Linux four system calls instead of seven (no
// poller registration, no second read for end of file) and no file object
// to finalize. The checks and messages are ReadFile's own. Call it once,
// before the FS is shared.
func (f *FS) Hold() error {
	d, err := f.root.Open(".")
	if err != nil {
		return fmt.Errorf("open workspace root %s: %w", f.dir, err)
	}
	f.held = d
	return nil
}

// Dir returns the workspace directory as given to Open.
func (f *FS) Dir() string { return f.dir }

// Root returns the os.Root on the workspace directory, for walkers that
// take one. The caller must not close it.
func (f *FS) Root() *os.Root { return f.root }

// Descend opens the directory name (one component) inside parent as a
// sub-root, refusing a symlink, a non-directory, and a directory replaced
// between the Lstat and the open (the opened directory must be the inode
// that was Lstat'ed). It returns the sub-root and the directory's info.
func Descend(parent *os.Root, name string) (*os.Root, fs.FileInfo, error) {
	fi, err := parent.Lstat(name)
	if err != nil {
		return nil, nil, statErr(name, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, nil, fmt.Errorf("%w: %s is a symlink; symlinks are never followed", ErrSymlink, Show(name))
	}
	if !fi.IsDir() {
		return nil, nil, fmt.Errorf("%w: %s", ErrNotDir, Show(name))
	}
	sub, err := parent.OpenRoot(name)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: opening directory %s: %v", ErrChanged, Show(name), err)
	}
	st, err := sub.Stat(".")
	if err != nil || !os.SameFile(fi, st) {
		sub.Close()
		return nil, nil, fmt.Errorf("%w: directory %s was replaced while it was being opened", ErrChanged, Show(name))
	}
	return sub, fi, nil
}

// openParent checks rel and descends to its parent directory. It returns
// the parent sub-root (the caller closes it unless it is f.root), the
// final component ("" for the root itself) and the cleaned path.
func (f *FS) openParent(rel string, create bool) (*os.Root, string, string, error) {
	clean, err := CleanPath(rel)
	if err != nil {
		return nil, "", "", err
	}
	parts := Split(clean)
	if len(parts) == 0 {
		return f.root, "", clean, nil
	}
	cur := f.root
	for i, c := range parts[:len(parts)-1] {
		if create {
			if err := cur.Mkdir(c, DefaultDirMode); err != nil && !errors.Is(err, fs.ErrExist) {
				f.release(cur)
				return nil, "", "", fmt.Errorf("create directory %s: %w", Show(strings.Join(parts[:i+1], "/")), err)
			}
		}
		sub, _, err := Descend(cur, c)
		f.release(cur)
		if err != nil {
			return nil, "", "", fmt.Errorf("%s: %w", Show(clean), err)
		}
		cur = sub
	}
	return cur, parts[len(parts)-1], clean, nil
}

func (f *FS) release(r *os.Root) {
	if r != f.root {
		r.Close()
	}
}

// Stat returns the Lstat information of rel, refusing symlink components
// and a symlink as the final component.
func (f *FS) Stat(rel string) (fs.FileInfo, error) {
	parent, name, clean, err := f.openParent(rel, false)
	if err != nil {
		return nil, err
	}
	defer f.release(parent)
	if name == "" {
		return parent.Stat(".")
	}
	fi, err := parent.Lstat(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Show(clean), statErr(name, err))
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("%w: %s is a symlink; symlinks are never followed", ErrSymlink, Show(clean))
	}
	return fi, nil
}

// OpenDir opens the directory rel as a sub-root (no symlink anywhere in
// the path). The caller closes it.
func (f *FS) OpenDir(rel string) (*os.Root, error) {
	parent, name, clean, err := f.openParent(rel, false)
	if err != nil {
		return nil, err
	}
	if name == "" {
		return parent.OpenRoot(".")
	}
	defer f.release(parent)
	sub, _, err := Descend(parent, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Show(clean), err)
	}
	return sub, nil
}

// DirPath checks that rel is a directory reached without symlinks and
// returns its path joined to the workspace directory, for use as a child
// process's working directory (the child is not confined by it).
func (f *FS) DirPath(rel string) (string, error) {
	d, err := f.OpenDir(rel)
	if err != nil {
		return "", err
	}
	d.Close()
	clean, _ := CleanPath(rel)
	return filepath.Join(f.dir, filepath.FromSlash(clean)), nil
}

// openRegular opens name in parent for reading: Lstat must show a regular
// file, the open uses O_NOFOLLOW|O_NONBLOCK (a FIFO swapped in cannot
// block), and fstat must show the same regular file.
func openRegular(parent *os.Root, name, clean string) (*os.File, fs.FileInfo, error) {
	fi, err := parent.Lstat(name)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", Show(clean), statErr(name, err))
	}
	if err := checkRegular(fi, clean); err != nil {
		return nil, nil, err
	}
	fh, err := parent.OpenFile(name, os.O_RDONLY|noFollow|nonBlock, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: opening %s: %v", ErrChanged, Show(clean), err)
	}
	st, err := fh.Stat()
	if err != nil || !os.SameFile(fi, st) || !st.Mode().IsRegular() {
		fh.Close()
		return nil, nil, fmt.Errorf("%w: %s was replaced while it was being opened", ErrChanged, Show(clean))
	}
	return fh, st, nil
}

func checkRegular(fi fs.FileInfo, clean string) error {
	m := fi.Mode()
	switch {
	case m.IsRegular():
		return nil
	case m&fs.ModeSymlink != 0:
		return fmt.Errorf("%w: %s is a symlink; symlinks are never followed", ErrSymlink, Show(clean))
	case m.IsDir():
		return fmt.Errorf("%w: %s", ErrIsDir, Show(clean))
	default:
		return fmt.Errorf("%w: %s is a %s", ErrNotRegular, Show(clean), KindOf(m))
	}
}

// KindOf names a file mode's type: file, dir, symlink, fifo, socket,
// device, char-device or other.
func KindOf(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "file"
	case m.IsDir():
		return "dir"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "char-device"
	case m&fs.ModeDevice != 0:
		return "device"
	default:
		return "other"
	}
}

// ReadFile reads the regular file rel, refusing it (ErrTooLarge) when it
// is over max bytes (max <= 0: no limit). It returns the content and the
// file's fstat information.
func (f *FS) ReadFile(rel string, max int64) ([]byte, fs.FileInfo, error) {
	parent, name, clean, err := f.openParent(rel, false)
	if err != nil {
		return nil, nil, err
	}
	defer f.release(parent)
	if name == "" {
		return nil, nil, fmt.Errorf("%w: %s is the workspace root", ErrIsDir, Show(clean))
	}
	if parent == f.root && f.held != nil {
		if b, st, err, ok := readHeld(f.held, name, clean, max); ok {
			return b, st, err
		}
	}
	fh, st, err := openRegular(parent, name, clean)
	if err != nil {
		return nil, nil, err
	}
	defer fh.Close()
	if err := checkSize(st, clean, max); err != nil {
		return nil, nil, err
	}
	limit := st.Size() + 1
	if max > 0 {
		limit = max + 1
	}
	buf := make([]byte, 0, st.Size()+1)
	b, err := readAllLimit(fh, buf, limit)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", Show(clean), err)
	}
	if err := checkGrown(b, clean, max); err != nil {
		return nil, nil, err
	}
	return b, st, nil
}

// checkSize refuses a file over max bytes (max <= 0: no limit).
func checkSize(st fs.FileInfo, clean string, max int64) error {
	if max > 0 && st.Size() > max {
		return fmt.Errorf("%w: %s is %d bytes, over the %d-byte read limit", ErrTooLarge, Show(clean), st.Size(), max)
	}
	return nil
}

// checkGrown refuses content read past max bytes (the file grew while it
// was read).
func checkGrown(b []byte, clean string, max int64) error {
	if max > 0 && int64(len(b)) > max {
		return fmt.Errorf("%w: %s grew over the %d-byte read limit while it was read", ErrTooLarge, Show(clean), max)
	}
	return nil
}

// ReadHead reads at most n bytes from the start of the regular file rel
// (same checks as ReadFile) and returns them with the file's fstat
// information; truncated is st.Size() > len(data).
func (f *FS) ReadHead(rel string, n int64) ([]byte, fs.FileInfo, error) {
	parent, name, clean, err := f.openParent(rel, false)
	if err != nil {
		return nil, nil, err
	}
	defer f.release(parent)
	if name == "" {
		return nil, nil, fmt.Errorf("%w: %s is the workspace root", ErrIsDir, Show(clean))
	}
	fh, st, err := openRegular(parent, name, clean)
	if err != nil {
		return nil, nil, err
	}
	defer fh.Close()
	b, err := readAllLimit(fh, make([]byte, 0, min(n, st.Size())+1), n)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", Show(clean), err)
	}
	return b, st, nil
}

func readAllLimit(r io.Reader, buf []byte, limit int64) ([]byte, error) {
	lr := io.LimitReader(r, limit)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// WriteOptions tunes WriteFile.
type WriteOptions struct {
	// ExpectedSHA256, when set (hex), refuses the write with ErrStale
	// unless the file exists and its current content has this SHA-256.
	ExpectedSHA256 string
	// MaxBytes refuses content over this many bytes (0: no limit).
	MaxBytes int64
}

// WriteResult describes a completed write.
type WriteResult struct {
	Path    string      // cleaned workspace-relative path
	Created bool        // no file existed before
	Mode    fs.FileMode // permission bits of the written file
	Size    int64
	SHA256  string // of the new content
}

// writeMu serialises this process's writes, so that an expected-SHA-256
// check and the rename that follows it are not interleaved with another
// write from the same process. Other processes are not locked out: a
// change between the check and the rename by another program is not
// detected (there is no portable advisory lock that editors honour).
var writeMu sync.Mutex

// WriteFile atomically replaces (or creates) the regular file rel with
// data: a temporary file in the same directory is written, given the
// old file's permission bits (DefaultFileMode for a new file), fsynced and
// renamed over the target, and the directory is fsynced. Missing parent
// directories are created (DefaultDirMode). It refuses paths inside
// ".git", symlinks anywhere (a dangling symlink as the target included)
// and non-regular targets; with ExpectedSHA256 it refuses (ErrStale),
// changing nothing, when the file is not that version.
func (f *FS) WriteFile(rel string, data []byte, opt WriteOptions) (*WriteResult, error) {
	clean, err := CleanPath(rel)
	if err != nil {
		return nil, err
	}
	if InGitDir(clean) {
		return nil, fmt.Errorf("%w: %s is inside a .git directory (or a name git, macOS or Windows treats as .git)", ErrGitDir, Show(clean))
	}
	if err := CheckWriteName(clean); err != nil {
		return nil, err
	}
	if opt.MaxBytes > 0 && int64(len(data)) > opt.MaxBytes {
		return nil, fmt.Errorf("%w: content is %d bytes, over the %d-byte write limit", ErrTooLarge, len(data), opt.MaxBytes)
	}
	if clean == "." {
		return nil, fmt.Errorf("%w: %s is the workspace root", ErrIsDir, Show(clean))
	}
	writeMu.Lock()
	defer writeMu.Unlock()
	// Parents are created only once the target's checks pass, so a refused
	// write leaves nothing behind.
	parent, name, _, err := f.openParent(clean, false)
	created := false
	if errors.Is(err, ErrMissing) {
		if opt.ExpectedSHA256 != "" {
			return nil, fmt.Errorf("%w: %s does not exist, but expected_sha256 %s was given", ErrStale, Show(clean), opt.ExpectedSHA256)
		}
		parent, name, _, err = f.openParent(clean, true)
	}
	if err != nil {
		return nil, err
	}
	defer f.release(parent)
	mode := fs.FileMode(DefaultFileMode)
	fi, err := parent.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		created = true
		if opt.ExpectedSHA256 != "" {
			return nil, fmt.Errorf("%w: %s does not exist, but expected_sha256 %s was given", ErrStale, Show(clean), opt.ExpectedSHA256)
		}
	case err != nil:
		return nil, fmt.Errorf("%s: %w", Show(clean), statErr(name, err))
	default:
		if err := checkRegular(fi, clean); err != nil {
			return nil, err
		}
		mode = fi.Mode().Perm()
		if opt.ExpectedSHA256 != "" {
			if err := checkSHA(parent, name, clean, opt.ExpectedSHA256); err != nil {
				return nil, err
			}
		}
	}
	sum := sha256.Sum256(data)
	if err := replace(parent, name, data, mode); err != nil {
		return nil, fmt.Errorf("write %s: %w", Show(clean), err)
	}
	return &WriteResult{Path: clean, Created: created, Mode: mode, Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}, nil
}

func checkSHA(parent *os.Root, name, clean, want string) error {
	fh, _, err := openRegular(parent, name, clean)
	if err != nil {
		return err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return fmt.Errorf("read %s: %w", Show(clean), err)
	}
	got := hex.EncodeToString(h.Sum(nil))
	if !strings.EqualFold(got, want) {
		return fmt.Errorf("%w: %s now has sha256 %s, not the expected %s; read it again and redo the change", ErrStale, Show(clean), got, want)
	}
	return nil
}

// replace writes data over name in parent atomically (atomicfile).
func replace(parent *os.Root, name string, data []byte, mode fs.FileMode) error {
	return atomicfile.WriteRoot(parent, name, data, atomicfile.Options{Mode: mode})
}

// statErr maps an Lstat error to the package's sentinels.
func statErr(name string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %s", ErrMissing, Show(name))
	case errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("%w: a component of %s", ErrNotDir, Show(name))
	case errors.Is(err, syscall.ENAMETOOLONG):
		return fmt.Errorf("%w: %s: name too long", ErrUnsafePath, Show(name))
	default:
		return err
	}
}

// SHA256Hex returns the lowercase hex SHA-256 of b.
func SHA256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
