package gitwork

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Blobs reads blobs through one `git cat-file --batch` process. It is safe
// for concurrent use (reads are serialised). Close ends the process.
type Blobs struct {
	mu    sync.Mutex
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Reader
	files map[string]*File
}

// OpenBlobs starts the reader for the given files of the repository (an
// Index or Tree listing): FS serves exactly these.
func (r *Repo) OpenBlobs(ctx context.Context, files []File) (*Blobs, error) {
	cmd := exec.CommandContext(ctx, "git", "-C", r.Top, "cat-file", "--batch")
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("%w: %v", ErrNoGit, err)
		}
		return nil, err
	}
	b := &Blobs{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10), files: make(map[string]*File, len(files))}
	for i := range files {
		b.files[files[i].Path] = &files[i]
	}
	return b, nil
}

// Close ends the git process.
func (b *Blobs) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.in.Close()
	return b.cmd.Wait()
}

// Read returns the content of f.
func (b *Blobs) Read(f *File) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, err := io.WriteString(b.in, f.ID+"\n"); err != nil {
		return nil, fmt.Errorf("%w: git cat-file: %v", ErrBroken, err)
	}
	hdr, err := b.out.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("%w: git cat-file: %v", ErrBroken, err)
	}
	fields := strings.Fields(hdr)
	if len(fields) != 3 || fields[1] != "blob" {
		return nil, fmt.Errorf("%w: object %s of %s is missing", ErrBroken, f.ID, f.Path)
	}
	n, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil || n != f.Size {
		return nil, fmt.Errorf("%w: object %s of %s has size %s, listed as %d", ErrBroken, f.ID, f.Path, fields[2], f.Size)
	}
	data := make([]byte, n+1)
	if _, err := io.ReadFull(b.out, data); err != nil {
		return nil, fmt.Errorf("%w: reading %s: %v", ErrBroken, f.Path, err)
	}
	return data[:n], nil
}

// FS returns the files as an fs.FS: Open reads a regular file's content;
// only the listed files open (folders and symlinks do not).
func (b *Blobs) FS() fs.FS { return blobFS{b} }

type blobFS struct{ b *Blobs }

func (f blobFS) Open(name string) (fs.File, error) {
	file, ok := f.b.files[name]
	if !ok || file.Type() != 0 {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	data, err := f.b.Read(file)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &blobFile{Reader: bytes.NewReader(data), info: blobInfo{name: path.Base(name), size: file.Size, exec: file.Executable()}}, nil
}

type blobFile struct {
	*bytes.Reader
	info blobInfo
}

func (f *blobFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *blobFile) Close() error               { return nil }

type blobInfo struct {
	name string
	size int64
	exec bool
}

func (i blobInfo) Name() string { return i.name }
func (i blobInfo) Size() int64  { return i.size }
func (i blobInfo) Mode() fs.FileMode {
	if i.exec {
		return 0o755
	}
	return 0o644
}
func (i blobInfo) ModTime() time.Time { return time.Time{} }
func (i blobInfo) IsDir() bool        { return false }
func (i blobInfo) Sys() any           { return nil }
