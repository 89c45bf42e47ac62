package engine

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/thalix/tv/internal/fastio"
	"github.com/thalix/tv/internal/jsonquote"
	"github.com/thalix/tv/internal/statcache"
)

// ManifestFormat is the manifest format version tv writes and reads.
const ManifestFormat = 1

// Manifest is the identity of a checkout: which vault and workspace it
// came from, the version it is based on, and per file its version. It holds
// no token, credential, storage key, URL or absolute local path.
type Manifest struct {
	Format        int    `json:"format"`
	VaultID       string `json:"vault_id"`
	WorkspaceID   string `json:"workspace_id"`
	WorkspaceName string `json:"workspace_name"`
	Baseline      Hash   `json:"baseline"`
	// Scope lists the folders this checkout holds when the checker-out
	// could read only those (folder grants); empty means the whole tree.
	Scope []string       `json:"scope,omitempty"`
	Files []ManifestFile `json:"files"`
}

// ManifestFile is one file of a checkout as it was written.
type ManifestFile struct {
	Path    string `json:"path"`
	Version Hash   `json:"version"` // git blob id
	SHA256  string `json:"sha256"`
	Size    int64  `json:"size"`
	Mode    string `json:"mode"` // "100644" or "100755"
}

func modeString(m FileMode) string { return strconv.FormatUint(uint64(m), 8) }

func parseMode(s string) (FileMode, error) {
	switch s {
	case "100644":
		return ModeFile, nil
	case "100755":
		return ModeExecutable, nil
	}
	return 0, fmt.Errorf("file mode %q is not 100644 or 100755", s)
}

// ReadManifest reads the manifest of checkout dir, with the changes of
// its log (ManifestLogName) applied. A directory without one
// yields ErrNotFound with advice; a damaged one ErrRefused.
func ReadManifest(dir string) (*Manifest, error) {
	m, _, err := readManifestAndLog(dir)
	return m, err
}

// readManifestIdentity reads the identity of checkout dir — its
// manifest's fields before the file list, checked as ReadManifest checks
// them — without decoding the list (23 MB at 100k files, where `tv
// workspace log DIR` needs only the workspace id). tv writes the list
// last; in a manifest that has it elsewhere it is skipped.
func readManifestIdentity(dir string) (*Manifest, error) {
	f, _, err := openRegularPath(filepath.Join(dir, ManifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, noManifest(dir)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var m Manifest
	if err := decodeIdentity(json.NewDecoder(io.LimitReader(f, MaxManifestBytes)), &m); err != nil {
		return nil, fmt.Errorf("%w: %s in %s is damaged (%v); check out again", ErrRefused, ManifestName, dir, err)
	}
	if err := m.checkIdentity(); err != nil {
		return nil, fmt.Errorf("%s in %s: %w", ManifestName, dir, err)
	}
	return &m, nil
}

// decodeIdentity decodes the members of the manifest object dec reads
// into m up to its file list ("files"), once the workspace is known;
// before that, the list and unknown members are skipped.
func decodeIdentity(dec *json.Decoder, m *Manifest) error {
	if t, err := dec.Token(); err != nil {
		return err
	} else if t != json.Delim('{') {
		return fmt.Errorf("not a JSON object")
	}
	fields := map[string]any{"format": &m.Format, "vault_id": &m.VaultID, "workspace_id": &m.WorkspaceID,
		"workspace_name": &m.WorkspaceName, "baseline": &m.Baseline, "scope": &m.Scope}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		if key == "files" && m.WorkspaceID != "" {
			return nil
		}
		into, ok := fields[key]
		if !ok {
			into = new(json.RawMessage)
		}
		if err := dec.Decode(into); err != nil {
			return fmt.Errorf("%s: %v", key, err)
		}
	}
	return nil
}

// manifestState is where a manifest read from disk came from: the
// baseline its file names (its log may move it on) and the log's stamp.
type manifestState struct {
	stamp        fastio.Stamp // of the manifest file read
	fileBaseline Hash
	log          fastio.FileID
}

// readManifestAndLog is ReadManifest, and where the manifest came from.
func readManifestAndLog(dir string) (*Manifest, manifestState, error) {
	b, stamp, err := readRegular(filepath.Join(dir, ManifestName), MaxManifestBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, manifestState{}, noManifest(dir)
	}
	if err != nil {
		return nil, manifestState{}, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, manifestState{}, fmt.Errorf("%w: %s in %s is damaged (%v); check out again", ErrRefused, ManifestName, dir, err)
	}
	if err := m.checkIdentity(); err != nil {
		return nil, manifestState{}, fmt.Errorf("%s in %s: %w", ManifestName, dir, err)
	}
	for _, f := range m.Files {
		if err := checkManifestFile(f); err != nil {
			return nil, manifestState{}, fmt.Errorf("%s in %s: %w", ManifestName, dir, err)
		}
	}
	log, st, err := readManifestLog(dir, &m)
	if err != nil {
		return nil, manifestState{}, err
	}
	state := manifestState{stamp: stamp, fileBaseline: m.Baseline, log: st}
	applyManifestLog(&m, log)
	return &m, state, nil
}

// checkManifestFile validates one file of a manifest (or its log): a safe
// path, a checkout file mode, a sha256 of 64 hex digits.
func checkManifestFile(f ManifestFile) error {
	if err := CheckPath(f.Path); err != nil {
		return err
	}
	if _, err := parseMode(f.Mode); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrRefused, f.Path, err)
	}
	if _, err := hex.DecodeString(f.SHA256); err != nil || len(f.SHA256) != 64 {
		return fmt.Errorf("%w: %s: sha256 %q is not 64 hex digits", ErrRefused, f.Path, f.SHA256)
	}
	return nil
}

// writeManifest replaces the manifest of dir atomically with the one base
// b stands for. Its data is synced before the rename, so the manifest is
// old or new and whole even after a power loss; the rename is not synced
// (git does not sync its index either): a manifest that comes back old
// after a commit heals itself, since the next commit finds its changes
// already upstream and moves the baseline.
// It records the new file's stamp in b.Header.ManifestStamp, which binds the
// stat cache written for b to this manifest.
func writeManifest(dir string, b *statcache.Cache) error {
	path := filepath.Join(dir, ManifestName)
	err := replaceFileWith(path, 0o644, func(w io.Writer) error {
		_, err := writeManifestJSON(w, b)
		return err
	})
	if err != nil {
		return err
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	b.Header.ManifestStamp = fastio.StampOf(fi)
	return nil
}

// encodeManifest is the manifest JSON of base b: the identity members one
// per line, then one line per file, sorted by path. It equals
// json.Marshal(b.manifest()) as a JSON value; it is written directly
// because encoding/json (by reflection, and indented) cost a commit of one
// file more than everything else it did on a tree of 10k+ files.
func encodeManifest(b *statcache.Cache) []byte {
	out, _ := writeManifestJSON(nil, b)
	return out
}

// manifestChunkBytes is how much of a manifest writeManifestJSON holds
// before it writes: a manifest of 100k files is 23 MiB, which a checkout
// would otherwise hold whole at its peak of memory.
const manifestChunkBytes = 256 << 10

// writeManifestJSON writes the manifest JSON of b (see encodeManifest) to
// w in chunks, or, when w is nil, returns it whole.
func writeManifestJSON(w io.Writer, b *statcache.Cache) ([]byte, error) {
	m := &b.Header
	size := 256 + len(m.VaultID) + len(m.WorkspaceID) + len(m.WorkspaceName)
	for _, f := range m.Scope {
		size += 4 + len(f)
	}
	const fileBytes = len(`  {"path":"","version":"","sha256":"","size":,"mode":""},`+"\n") + 40 + 64 + 20 + 6
	for i := range b.Files {
		size += fileBytes + len(b.Files[i].Path)
	}
	if w != nil {
		size = manifestChunkBytes + 4096
	}
	out := make([]byte, 0, size)
	out = fmt.Appendf(out, "{\n  \"format\": %d,\n  \"vault_id\": ", ManifestFormat)
	out = jsonquote.Append(out, m.VaultID)
	out = append(out, ",\n  \"workspace_id\": "...)
	out = jsonquote.Append(out, m.WorkspaceID)
	out = append(out, ",\n  \"workspace_name\": "...)
	out = jsonquote.Append(out, m.WorkspaceName)
	out = append(out, ",\n  \"baseline\": "...)
	out = appendHash(out, m.Baseline)
	out = append(out, ',', '\n')
	if len(m.Scope) > 0 {
		out = append(out, "  \"scope\": ["...)
		for i, f := range m.Scope {
			if i > 0 {
				out = append(out, ',', ' ')
			}
			out = jsonquote.Append(out, f)
		}
		out = append(out, "],\n"...)
	}
	out = append(out, "  \"files\": ["...)
	for i := range b.Files {
		e := &b.Files[i]
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, "\n    {\"path\": "...)
		out = jsonquote.Append(out, e.Path)
		out = append(out, ", \"version\": "...)
		out = appendHash(out, e.ID)
		out = append(out, ", \"sha256\": \""...)
		out = hex.AppendEncode(out, e.SHA256[:])
		out = append(out, "\", \"size\": "...)
		out = strconv.AppendInt(out, e.Stamp.Size, 10)
		out = append(out, ", \"mode\": \""...)
		out = append(out, modeText(FileMode(e.Mode))...)
		out = append(out, "\"}"...)
		if w != nil && len(out) >= manifestChunkBytes {
			if _, err := w.Write(out); err != nil {
				return nil, err
			}
			out = out[:0]
		}
	}
	if len(b.Files) > 0 {
		out = append(out, '\n', ' ', ' ')
	}
	out = append(out, "]\n}\n"...)
	if w != nil {
		_, err := w.Write(out)
		return nil, err
	}
	return out, nil
}

// appendHash appends h as Hash.MarshalText does, quoted.
func appendHash(out []byte, h Hash) []byte {
	out = append(out, '"')
	if !h.IsZero() {
		out = hex.AppendEncode(out, h[:])
	}
	return append(out, '"')
}

// checkIdentity validates the manifest's identity fields, which a user or
// agent may have edited: they must name a workspace by id and name, never
// carry text that could reach a commit message.
func (m *Manifest) checkIdentity() error {
	switch {
	case m.Format != ManifestFormat:
		return fmt.Errorf("%w: format %d is not %d; check out again with this tv", ErrRefused, m.Format, ManifestFormat)
	case !isID(m.WorkspaceID) || !strings.HasPrefix(m.WorkspaceID, idPrefix(KindWorkspace)):
		return fmt.Errorf("%w: workspace_id %q is not a workspace id; check out again", ErrRefused, m.WorkspaceID)
	case ValidateName(m.WorkspaceName) != nil:
		return fmt.Errorf("%w: workspace_name %q is not a valid name; check out again", ErrRefused, m.WorkspaceName)
	case m.Baseline.IsZero():
		return fmt.Errorf("%w: no baseline version; check out again", ErrRefused)
	}
	for _, f := range m.Scope {
		if err := CheckPath(f); err != nil {
			return err
		}
	}
	return nil
}

// openRegularPath opens the regular file at path for reading without
// following a symlink or blocking on a FIFO; anything else is refused.
func openRegularPath(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|fastio.NoFollow|fastio.NonBlock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%w: %s is not a regular file", ErrRefused, path)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// noManifest is the error for a folder without a manifest.
func noManifest(dir string) error {
	return fmt.Errorf("%w: %s has no %s: it is not a tv checkout, or its checkout was interrupted (check out again into an empty directory)", ErrNotFound, dir, ManifestName)
}

// readRegular reads a regular file of at most max bytes without following
// a symlink or blocking on a FIFO, and returns the stamp of the file read.
func readRegular(path string, max int64) ([]byte, fastio.Stamp, error) {
	f, fi, err := openRegularPath(path)
	if err != nil {
		return nil, fastio.Stamp{}, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, fastio.Stamp{}, fmt.Errorf("%w: %s is %d bytes, over %d", ErrRefused, path, fi.Size(), max)
	}
	// The stat's size, and a byte more to see a file that grew (io.ReadAll
	// doubled its buffer from 512 bytes: 50 MB for a 23 MB manifest).
	b := make([]byte, 0, fi.Size()+1)
	for int64(len(b)) <= max {
		if len(b) == cap(b) {
			b = slices.Grow(b, len(b))
		}
		n, err := f.Read(b[len(b):min(cap(b), int(max+1))])
		b = b[:len(b)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fastio.Stamp{}, err
		}
	}
	return b, fastio.StampOf(fi), nil
}
