package engine

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/thalix/tv/gitwork"
	"github.com/thalix/tv/icm"
)

// sourceFile is one validated file of an import source.
type sourceFile struct {
	path string
	mode FileMode
	size int64
	open func() (io.ReadCloser, error)
}

// source is a validated, bounded import input: its files, and an fs.FS
// view for ICM validation. close releases it.
type source struct {
	files []sourceFile
	fsys  fs.FS
	close func() error
	// listing, when set, is the tree to validate (fsys then holds more
	// than the source: a git work tree's ignored files).
	listing []icm.Entry
}

// inventory accumulates an import's entries and enforces the safe-input
// rules and limits as it goes.
type inventory struct {
	files []sourceFile
	seen  map[string]bool // files and folders by exact path; true for folders
	fold  foldSet
	total int64
}

func newInventory() *inventory {
	return &inventory{seen: map[string]bool{}, fold: foldSet{}}
}

func (inv *inventory) addDir(p string) error {
	if err := checkNotReserved(p); err != nil {
		return err
	}
	if err := CheckPath(p); err != nil {
		return err
	}
	if isDir, ok := inv.seen[p]; ok && !isDir {
		return fmt.Errorf("%w: %q is both a file and a folder", ErrRefused, p)
	}
	inv.seen[p] = true
	return inv.fold.add(p)
}

func (inv *inventory) addFile(f sourceFile) error {
	p := f.path
	if err := checkNotReserved(p); err != nil {
		return err
	}
	if err := CheckPath(p); err != nil {
		return err
	}
	if _, dup := inv.seen[p]; dup {
		return fmt.Errorf("%w: %q appears twice", ErrRefused, p)
	}
	for dir := p; ; {
		i := strings.LastIndexByte(dir, '/')
		if i < 0 {
			break
		}
		dir = dir[:i]
		if isDir, ok := inv.seen[dir]; ok && !isDir {
			return fmt.Errorf("%w: %q is both a file and a folder", ErrRefused, dir)
		}
		inv.seen[dir] = true
	}
	inv.seen[p] = false
	if err := inv.fold.add(p); err != nil {
		return err
	}
	if len(inv.files) >= MaxImportFiles {
		return fmt.Errorf("%w: more than %d files", ErrRefused, MaxImportFiles)
	}
	if f.size > MaxFileBytes {
		return fmt.Errorf("%w: %q is %d bytes, over the %d-byte (%d MiB) per-file limit", ErrRefused, p, f.size, MaxFileBytes, MaxFileBytes>>20)
	}
	inv.total += f.size
	if inv.total > MaxImportBytes {
		return fmt.Errorf("%w: more than %d bytes (%d GiB) in total", ErrRefused, int64(MaxImportBytes), MaxImportBytes>>30)
	}
	inv.files = append(inv.files, f)
	return nil
}

func (inv *inventory) sorted() []sourceFile {
	sort.Slice(inv.files, func(i, j int) bool { return inv.files[i].path < inv.files[j].path })
	return inv.files
}

// openSource opens a folder or a .zip file as an import source. Every
// entry is checked before any byte of content is read.
func openSource(path string) (*source, error) {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: import source %s does not exist", ErrNotFound, path)
		}
		return nil, err
	}
	if fi.IsDir() {
		return openFolder(path)
	}
	if fi.Mode().IsRegular() && strings.EqualFold(filepath.Ext(path), ".zip") {
		return openZip(path, fi.Size())
	}
	return nil, fmt.Errorf("%w: %s is neither a folder nor a .zip file", ErrUsage, path)
}

func openFolder(dir string) (*source, error) {
	if repo, err := gitwork.Find(dir); err == nil {
		return openWorkTree(dir, repo)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	b := newBeneath(root)
	files, err := inventoryFS(root.FS(), nil, func(p string, size int64) func() (io.ReadCloser, error) {
		return func() (io.ReadCloser, error) { return openRegular(b, p, size) }
	})
	if err != nil {
		b.close()
		if errors.Is(err, errGitFolder) {
			err = fmt.Errorf("%w: %s holds a .git folder; import the files, not a git repository (copy them out, or use `git archive` to make a zip)", ErrRefused, dir)
		}
		return nil, err
	}
	// The listing is the inventory's (the stored tree: its files and the
	// folders holding them), so validation walks the folder no second time.
	return &source{files: files, fsys: sourceFS{b}, close: b.close, listing: sourceListing(files)}, nil
}

// fsSource makes a source of an fs.FS whose files open through it (the
// bundled starter).
func fsSource(fsys fs.FS) (*source, error) {
	files, err := inventoryFS(fsys, nil, func(p string, _ int64) func() (io.ReadCloser, error) {
		return func() (io.ReadCloser, error) { return fsys.Open(p) }
	})
	if err != nil {
		return nil, err
	}
	return &source{files: files, fsys: fsys, close: func() error { return nil }}, nil
}

var errGitFolder = errors.New(".git folder")

// inventoryFS walks fsys without following symlinks and checks every
// entry against the safe-input rules. opener makes each file's open func
// from its path and the size seen (only the size: a file's fs.FileInfo,
// ~245 bytes, would be kept until the import ends).
// git, when set, is a git work tree's view: .git and ignored entries are
// left out, a nested repository is refused.
func inventoryFS(fsys fs.FS, git *scanFilter, opener func(p string, size int64) func() (io.ReadCloser, error)) ([]sourceFile, error) {
	inv := newInventory()
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == "." {
			return nil
		}
		if git != nil {
			if d.Name() == ".git" && p != ".git" {
				return fmt.Errorf("%w: %s is a nested git repository (it holds .git); a tv workspace holds no repositories: remove its .git, or list it in .gitignore", ErrRefused, path.Dir(p))
			}
			if p == ".git" {
				return fs.SkipDir
			}
			if git.skip(p, d.IsDir(), false) {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
		}
		if d.IsDir() && p == ".git" {
			return errGitFolder
		}
		if isReserved(p) && !d.IsDir() {
			return nil // a checkout's own metadata is not content
		}
		switch t := d.Type(); {
		case t&fs.ModeSymlink != 0:
			return fmt.Errorf("%w: %q is a symlink; tv stores no symlinks", ErrRefused, p)
		case t.IsDir():
			return inv.addDir(p)
		case !t.IsRegular():
			return fmt.Errorf("%w: %q is a %s, not a regular file", ErrRefused, p, icm.TypeName(t))
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return inv.addFile(sourceFile{path: p, mode: modeOf(info.Mode()), size: info.Size(), open: opener(p, info.Size())})
	})
	if err != nil {
		return nil, err
	}
	return inv.sorted(), nil
}

// openRegular opens a regular file through b (never following a symlink)
// and checks that it is still the file that was inspected: a regular file
// of the size then seen.
func openRegular(b beneath, name string, size int64) (io.ReadCloser, error) {
	f, st, err := b.openRead(name)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	if !fs.FileMode(st.Mode).IsRegular() || st.Size != size {
		f.Close()
		return nil, fmt.Errorf("%w: %s changed while it was being read; try again", ErrConflict, name)
	}
	return f, nil
}

func modeOf(m fs.FileMode) FileMode {
	if m&0o111 != 0 {
		return ModeExecutable
	}
	return ModeFile
}

func openZip(path string, size int64) (*source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(f, size)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %s is not a readable zip: %v", ErrRefused, path, err)
	}
	if len(zr.File) > MaxZipEntries {
		f.Close()
		return nil, fmt.Errorf("%w: zip has %d entries, over %d", ErrRefused, len(zr.File), MaxZipEntries)
	}
	inv := newInventory()
	for _, zf := range zr.File {
		if err := addZipEntry(inv, zf); err != nil {
			f.Close()
			return nil, err
		}
	}
	files := inv.sorted()
	byPath := make(map[string]sourceFile, len(files))
	for _, sf := range files {
		byPath[sf.path] = sf
	}
	return &source{files: files, fsys: zipFS{zr, byPath}, close: f.Close}, nil
}

// zipFS is a zip's fs.FS whose files read through their exactReader, so
// ICM validation sees the same checked bytes as the import.
type zipFS struct {
	zr    *zip.Reader
	files map[string]sourceFile
}

func (z zipFS) Open(name string) (fs.File, error) {
	f, err := z.zr.Open(name)
	if err != nil {
		return nil, err
	}
	sf, ok := z.files[name]
	if !ok {
		return f, nil
	}
	rc, err := sf.open()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &checkedFile{File: f, r: rc}, nil
}

// checkedFile is a zip entry whose reads go through its exactReader.
type checkedFile struct {
	fs.File
	r io.ReadCloser
}

func (c *checkedFile) Read(p []byte) (int, error) { return c.r.Read(p) }

func (c *checkedFile) Close() error {
	c.r.Close()
	return c.File.Close()
}

func addZipEntry(inv *inventory, zf *zip.File) error {
	name := zf.Name
	if err := CheckPath(strings.TrimSuffix(name, "/")); err != nil {
		return fmt.Errorf("zip entry: %w", err)
	}
	mode := zf.Mode()
	if strings.HasSuffix(name, "/") || mode.IsDir() {
		return inv.addDir(strings.TrimSuffix(name, "/"))
	}
	p := name
	if isReserved(p) && !strings.Contains(p, "/") {
		return nil // a checkout's own metadata is not content
	}
	if mode&fs.ModeSymlink != 0 {
		return fmt.Errorf("%w: zip entry %q is a symlink; tv stores no symlinks", ErrRefused, p)
	}
	if !mode.IsRegular() {
		return fmt.Errorf("%w: zip entry %q is a %s, not a regular file", ErrRefused, p, icm.TypeName(mode))
	}
	declared := zf.UncompressedSize64
	if declared > MaxFileBytes {
		return fmt.Errorf("%w: zip entry %q declares %d bytes, over the %d-byte per-file limit", ErrRefused, p, declared, MaxFileBytes)
	}
	if declared > ZipRatioExemptBytes && declared > MaxZipRatio*zf.CompressedSize64 {
		return fmt.Errorf("%w: zip entry %q inflates %d bytes from %d (over the %d:1 ratio limit): a zip bomb?", ErrRefused, p, declared, zf.CompressedSize64, MaxZipRatio)
	}
	return inv.addFile(sourceFile{
		path: p, mode: modeOf(mode), size: int64(declared),
		open: func() (io.ReadCloser, error) {
			rc, err := zf.Open()
			if err != nil {
				return nil, fmt.Errorf("%w: zip entry %q: %v", ErrRefused, p, err)
			}
			return &exactReader{rc: rc, name: p, left: int64(declared)}, nil
		},
	})
}

// exactReader yields a zip entry's bytes and fails if the entry inflates
// to more bytes than it declared (a lying size), counting what is
// actually inflated rather than trusting the header.
type exactReader struct {
	rc   io.ReadCloser
	name string
	left int64
}

func (r *exactReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		var one [1]byte
		n, err := r.rc.Read(one[:])
		switch {
		case n > 0 || errors.Is(err, zip.ErrFormat):
			return 0, fmt.Errorf("%w: zip entry %q inflates to more bytes than it declares", ErrRefused, r.name)
		case err == nil || err == io.EOF:
			return 0, io.EOF
		}
		return 0, fmt.Errorf("%w: zip entry %q: %v", ErrRefused, r.name, err)
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.rc.Read(p)
	r.left -= int64(n)
	switch {
	case err == nil:
		return n, nil
	case (err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF)) && r.left > 0:
		return n, fmt.Errorf("%w: zip entry %q inflates to fewer bytes than it declares", ErrRefused, r.name)
	case err == io.EOF:
		return n, nil
	}
	return n, fmt.Errorf("%w: zip entry %q: %v", ErrRefused, r.name, err)
}

func (r *exactReader) Close() error { return r.rc.Close() }

// checkNotReserved refuses a folder named like tv's checkout metadata, and
// anything inside one: a checkout could never hold it. (Root-level
// metadata files are skipped before they get here.)
func checkNotReserved(p string) error {
	if first, _, _ := strings.Cut(p, "/"); isReserved(first) {
		return fmt.Errorf("%w: %q: the name %q is reserved for tv's checkout metadata", ErrRefused, p, first)
	}
	return nil
}
