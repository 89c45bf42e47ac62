package gitbackend

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/thalix/tv/atomicfile"
	"github.com/thalix/tv/engine"
)

// VaultIDRef is the ref that carries a vault's identity: it points at a
// blob "tv vault\nTv-Vault-Id: <id>\n". It travels with `git clone
// --mirror`, `git push --mirror` and fetches, so a mirror of a vault is
// the same vault to tv (a git config entry would not travel). The blob is
// determined by the id, so processes that write it concurrently write the
// same object, and a lost create-if-absent race is not an error. A blob
// (not a commit) keeps it out of `git log --all`.
const VaultIDRef = "refs/tv/vault"

const vaultIDTrailer = "Tv-Vault-Id: "

// legacyIDKey is where vaults made before VaultIDRef kept their id.
const legacyIDKey = "tv.vaultid"

// idBlob returns the content of the identity blob of vault id.
func idBlob(id string) []byte { return []byte("tv vault\n" + vaultIDTrailer + id + "\n") }

// idFromBlob extracts the vault id from an identity blob.
func idFromBlob(b []byte) (string, bool) {
	for _, line := range strings.Split(string(b), "\n") {
		if id, ok := strings.CutPrefix(line, vaultIDTrailer); ok && validVaultID(id) {
			return id, true
		}
	}
	return "", false
}

// validVaultID accepts "vault_" followed by 1..64 lowercase hex digits or
// letters, digits, '-' and '_' (ids of vaults made by other tools).
func validVaultID(id string) bool {
	rest, ok := strings.CutPrefix(id, "vault_")
	if !ok || rest == "" || len(rest) > 64 {
		return false
	}
	for _, r := range rest {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// writeID writes the identity commit of id and points VaultIDRef at it
// (create-if-absent). A concurrent writer of the same id is not an error.
// The blob is written loose: a pack for one tiny object would count
// against AutoPackLimit for nothing.
func (v *Vault) writeID(ctx context.Context, id string) error {
	c, err := v.writeLoose(typeBlob, idBlob(id))
	if err != nil {
		return err
	}
	err = v.UpdateRefs(ctx, engine.RefUpdate{Name: VaultIDRef, New: c})
	if errors.Is(err, engine.ErrRefStale) {
		if cur, rerr := v.Ref(ctx, VaultIDRef); rerr == nil && cur == c {
			return nil
		}
	}
	return err
}

// writeLoose writes one loose object durably (atomicfile: temp file,
// fsync, rename, fsync of its directory) unless the vault has it already.
func (v *Vault) writeLoose(typ int, content []byte) (engine.Hash, error) {
	h := hashObject(typ, content)
	if v.objectExists(h) {
		return h, nil
	}
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	zw.Write(objectHeader(typ, int64(len(content))))
	zw.Write(content)
	if err := zw.Close(); err != nil {
		return h, err
	}
	// tmp_obj_ is git's own prefix: git gc removes one a crash left.
	opt := atomicfile.Options{Mode: 0o600, MkdirMode: 0o755, TempPattern: "tmp_obj_*"}
	if err := atomicfile.WriteFile(v.loosePath(h), buf.Bytes(), opt); err != nil {
		return h, fmt.Errorf("write object %s: %w", h, err)
	}
	return h, nil
}

// loadID reads the vault id from VaultIDRef. A vault made before it
// existed keeps its id in git config (tv.vaultid); loadID then writes the
// ref (best effort: a read-only vault still opens) so mirrors keep it.
func (v *Vault) loadID() (string, error) {
	ctx := context.Background()
	h, err := v.Ref(ctx, VaultIDRef)
	if err == nil {
		b, err := v.readIDBlob(h)
		if err != nil {
			return "", fmt.Errorf("%w: %s: %s names no readable blob: %v", ErrNotVault, v.path, VaultIDRef, err)
		}
		id, ok := idFromBlob(b)
		if !ok {
			return "", fmt.Errorf("%w: %s: %s carries no %q trailer", ErrNotVault, v.path, VaultIDRef, strings.TrimSpace(vaultIDTrailer))
		}
		return id, nil
	}
	if !errors.Is(err, engine.ErrRefNotFound) {
		return "", err
	}
	id, err := readLegacyID(filepath.Join(v.path, "config"))
	if err != nil {
		return "", err
	}
	_ = v.writeID(ctx, id) // migration; the config entry stays for older tv
	return id, nil
}

// readLegacyID reads tv.vaultid from a git config file (legacyconfig.go)
// of at most MaxLegacyConfigBytes.
func readLegacyID(configPath string) (string, error) {
	f, err := os.Open(configPath)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotVault, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxLegacyConfigBytes+1))
	if err != nil {
		return "", fmt.Errorf("%w: read %s: %w", ErrNotVault, configPath, err)
	}
	if len(data) > MaxLegacyConfigBytes {
		return "", fmt.Errorf("%w: %s is larger than %d bytes (MaxLegacyConfigBytes): not read for %s", ErrNotVault, configPath, MaxLegacyConfigBytes, legacyIDKey)
	}
	id, _, err := readLegacyConfig(data)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrNotVault, configPath, err)
	}
	if id == "" {
		return "", fmt.Errorf("%w: %s has no %s ref (and no %s in its config)", ErrNotVault, filepath.Dir(configPath), VaultIDRef, legacyIDKey)
	}
	if !validVaultID(id) {
		// Migrated as it is, it would make an identity blob that the next
		// open refuses: refuse it now, naming the file and the value.
		return "", fmt.Errorf("%w: %s: %s = %q is not a vault id (vault_ and 1-64 letters, digits, '-' or '_')", ErrNotVault, configPath, legacyIDKey, id)
	}
	return id, nil
}

// maxIDBlobBytes bounds the identity blob read when a vault opens.
const maxIDBlobBytes = 1024

func (v *Vault) readIDBlob(h engine.Hash) ([]byte, error) {
	typ, size, rc, err := v.openObject(h)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	if typ != typeBlob || size > maxIDBlobBytes {
		return nil, fmt.Errorf("it is a %s of %d bytes, not a blob of at most %d", typeNames[typ], size, maxIDBlobBytes)
	}
	return io.ReadAll(rc)
}
