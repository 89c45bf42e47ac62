package engine

import (
	"crypto/sha1"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"
	"unsafe"
)

// diskFile is a regular file found by a scan.
type diskFile struct {
	path  string
	stamp fileStamp
	mode  FileMode
	// id and sha256 are the content's, filled by hashing (or the cache).
	id     Hash
	sha256 [32]byte
	hashed bool
}

// snapshot is what a scan saw of a checkout: its regular files, folders,
// and a read-only fs.FS view for ICM validation that serves directory
// listings from the scan and opens files without following symlinks.
type snapshot struct {
	root  *os.Root
	fast  *dirHandle // root's folder for one-call opens (openBeneath); may be nil
	files map[string]*diskFile
	dirs  map[string][]fs.DirEntry // by slash path, "." for the root
}

// scanCheckout lists dir without following symlinks, in parallel. It skips
// tv's own metadata and any .git folder (a checkout may itself be kept in
// git; .git is never part of a workspace).
func scanCheckout(dir string) (*snapshot, error) {
	dir = filepath.Clean(dir)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	s := &snapshot{root: root, dirs: map[string][]fs.DirEntry{}}
	if d, err := openRootDir(root); err == nil {
		s.fast = d
	}
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		firstErr error
		sem      = make(chan struct{}, ScanWorkers)
		found    [][]*diskFile // per folder; the map is built once, at its size
		nfiles   int
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
	}
	var visit func(rel string)
	visit = func(rel string) {
		defer wg.Done()
		sem <- struct{}{}
		entries, files, subdirs, err := readDirStat(dir, rel)
		<-sem
		if err != nil {
			fail(err)
			return
		}
		mu.Lock()
		s.dirs[rel] = entries
		found = append(found, files)
		nfiles += len(files)
		mu.Unlock()
		for _, d := range subdirs {
			wg.Add(1)
			go visit(d)
		}
	}
	wg.Add(1)
	visit(".")
	wg.Wait()
	if firstErr != nil {
		s.close()
		return nil, firstErr
	}
	s.files = make(map[string]*diskFile, nfiles)
	for _, files := range found {
		for _, f := range files {
			s.files[f.path] = f
		}
	}
	return s, nil
}

// readDirStat lists one folder and lstats its regular files, relative to
// the open folder (one fstatat per file, no path walk). Entries come
// sorted by name.
func readDirStat(dir, rel string) (entries []fs.DirEntry, files []*diskFile, subdirs []string, err error) {
	abs := dir // clean (scanCheckout)
	if rel != "." {
		abs = dir + string(filepath.Separator) + filepath.FromSlash(rel)
	}
	l, err := openDirLister(abs, rel == ".")
	if err != nil {
		return nil, nil, nil, err
	}
	defer l.close()
	all, err := l.entries()
	if err != nil {
		return nil, nil, nil, err
	}
	entries = all[:0]
	prefix := ""
	if rel != "." {
		prefix = rel + "/"
	}
	// The slash paths of all entries, cut from one string.
	var size, nreg int
	for _, e := range all {
		size += len(prefix) + len(e.Name())
		if e.Type().IsRegular() {
			nreg++
		}
	}
	pb := make([]byte, 0, size)
	for _, e := range all {
		pb = append(pb, prefix...)
		pb = append(pb, e.Name()...)
	}
	paths := unsafe.String(unsafe.SliceData(pb), len(pb)) // pb is not written again
	store := make([]diskFile, 0, nreg)                    // one allocation for the folder's files
	off := 0
	for _, e := range all {
		name := e.Name()
		p := paths[off : off+len(prefix)+len(name)]
		off += len(p)
		if name == ".git" || (rel == "." && isReserved(p)) {
			continue
		}
		entries = append(entries, e)
		switch t := e.Type(); {
		case t.IsDir():
			subdirs = append(subdirs, p)
		case t.IsRegular():
			st, err := l.lstat(name)
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed while scanning
			}
			if err != nil {
				return nil, nil, nil, err
			}
			store = append(store, diskFile{path: p, stamp: st, mode: modeOf(fs.FileMode(st.Mode))})
			files = append(files, &store[len(store)-1])
		}
	}
	return entries, files, subdirs, nil
}

func (s *snapshot) close() {
	if s.fast != nil {
		s.fast.close()
	}
	s.root.Close()
}

// hashFiles computes git blob ids and sha256 of the given files in
// parallel, reading each through the root without following symlinks.
func (s *snapshot) hashFiles(files []*diskFile) error {
	jobs := make(chan *diskFile)
	errs := make(chan error, ScanWorkers)
	var wg sync.WaitGroup
	for range ScanWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 256<<10)
			for f := range jobs {
				if err := s.hashOne(f, buf); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
			}
		}()
	}
	for _, f := range files {
		jobs <- f
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

func (s *snapshot) hashOne(f *diskFile, buf []byte) error {
	fh, st, err := s.openRead(f.path)
	if err != nil {
		return fmt.Errorf("read %s: %w", f.path, err)
	}
	defer fh.Close()
	if !fs.FileMode(st.Mode).IsRegular() {
		return fmt.Errorf("%w: %s is no longer a regular file", ErrConflict, f.path)
	}
	if st.Size > MaxFileBytes {
		return fmt.Errorf("%w: %s is %d bytes, over the %d-byte (%d MiB) per-file limit", ErrRefused, f.path, st.Size, MaxFileBytes, MaxFileBytes>>20)
	}
	f.stamp = st
	h1, h2 := blobHasher(st.Size), sha256.New()
	n, err := io.CopyBuffer(io.MultiWriter(h1, h2), io.LimitReader(fh, st.Size+1), buf)
	if err != nil {
		return fmt.Errorf("read %s: %w", f.path, err)
	}
	if n != st.Size {
		return fmt.Errorf("%w: %s changed size while it was read; run again", ErrConflict, f.path)
	}
	h1.Sum(f.id[:0])
	h2.Sum(f.sha256[:0])
	f.hashed = true
	return nil
}

// openRead opens the file at slash path p for reading, never following a
// symlink, and stats it: in one openat2 where the kernel has it, else
// through the root.
func (s *snapshot) openRead(p string) (io.ReadCloser, fileStamp, error) {
	if s.fast != nil {
		rf, ok, err := s.fast.openBeneath(p)
		if ok {
			if err != nil {
				return nil, fileStamp{}, err
			}
			st, err := rf.stat()
			if err != nil {
				rf.Close()
				return nil, fileStamp{}, err
			}
			return rf, st, nil
		}
	}
	fh, err := s.root.OpenFile(filepath.FromSlash(p), os.O_RDONLY|noFollow|nonBlock, 0)
	if err != nil {
		return nil, fileStamp{}, err
	}
	fi, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, fileStamp{}, err
	}
	return fh, stampOf(fi), nil
}

// blobHasher returns a SHA-1 primed with git's blob header.
func blobHasher(size int64) hash.Hash {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.FormatInt(size, 10) + "\x00"))
	return h
}

// FS returns the snapshot as an fs.FS for ICM validation.
func (s *snapshot) FS() fs.FS { return snapshotFS{s} }

type snapshotFS struct{ s *snapshot }

func (f snapshotFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if _, ok := f.s.dirs[name]; ok {
		return f.s.root.Open(filepath.FromSlash(name))
	}
	if _, ok := f.s.files[name]; !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	var fh *os.File
	if f.s.fast != nil {
		if rf, ok, err := f.s.fast.openBeneath(name); ok {
			if err != nil {
				return nil, err
			}
			fh = rf.osFile(filepath.FromSlash(name))
		}
	}
	if fh == nil {
		var err error
		if fh, err = f.s.root.OpenFile(filepath.FromSlash(name), os.O_RDONLY|noFollow|nonBlock, 0); err != nil {
			return nil, err
		}
	}
	return regularOnly(fh, name)
}

// regularOnly returns fh if it is a regular file, else closes it: a file
// swapped for a FIFO or device after the scan is never read (a read could
// block forever).
func regularOnly(fh *os.File, name string) (*os.File, error) {
	fi, err := fh.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%w: %s is no longer a regular file", ErrConflict, name)
	}
	if err != nil {
		fh.Close()
		return nil, err
	}
	return fh, nil
}

// ReadDir serves listings from the scan, so validation does not walk the
// disk a second time.
func (f snapshotFS) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, ok := f.s.dirs[name]
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return slices.Clone(entries), nil // sorted by the scan
}

// Stat answers from the scan where it can.
func (f snapshotFS) Stat(name string) (fs.FileInfo, error) {
	if _, ok := f.s.dirs[name]; ok {
		return dirInfo(path.Base(name)), nil
	}
	return fs.Stat(fsOnly{f}, name)
}

// fsOnly hides snapshotFS's StatFS method to avoid recursion.
type fsOnly struct{ f snapshotFS }

func (o fsOnly) Open(name string) (fs.File, error) { return o.f.Open(name) }

type dirInfo string

func (d dirInfo) Name() string       { return string(d) }
func (d dirInfo) Size() int64        { return 0 }
func (d dirInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o755 }
func (d dirInfo) ModTime() time.Time { return time.Time{} }
func (d dirInfo) IsDir() bool        { return true }
func (d dirInfo) Sys() any           { return nil }
