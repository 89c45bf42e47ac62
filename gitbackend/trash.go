package gitbackend

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Retiring merged packs. Deleting a file frees its blocks, and on a
// journalling file system that is the expensive part of a deletion: on
// the ext4 (mounted with discard) this project is measured on, unlinking
// a small fsynced file took 0.2–2 ms, renaming it 20 µs. A consolidation
// that deleted the 17 packs it merged (34 files) spent 5–130 ms doing
// so, most of what made it the slowest commit. So a consolidation only
// renames the packs it merged into the vault's trash (trashDirName, at
// the top of the git directory, outside objects/, where neither git nor
// tv looks for objects), and every batch afterwards deletes at most
// TrashFilesPerBatch of the trash's files: the freeing is spread over the
// commits that follow, a few files each, instead of landing on one.
//
// Crash safety is the deletion's: a pack is retired only once the merged
// pack holding its objects is durable and in place, index first so no
// reader loads a pack about to go. A crash before a rename leaves a
// duplicate pack (harmless; the next consolidation merges it away); a
// crash after it leaves a file in the trash, which is only ever deleted.
// Neither step is fsynced: a rename the crash undoes is the duplicate
// case again.

// trashDirName is the folder of the git directory retired packs wait in.
const trashDirName = "tv-trash"

// trashDir is the vault's trash folder.
func (v *Vault) trashDir() string { return filepath.Join(v.path, trashDirName) }

// retirePacks takes the packs names out of dir (objects/pack) into the
// trash, index first. A pack that cannot be moved (another file system,
// the trash not creatable) is deleted instead.
func (v *Vault) retirePacks(dir string, names []string) {
	trash := v.trashDir()
	made := false
	for _, name := range names {
		for _, ext := range []string{".idx", ".pack"} {
			from := filepath.Join(dir, name+ext)
			to := filepath.Join(trash, name+ext)
			err := os.Rename(from, to)
			if err != nil && !made && errors.Is(err, fs.ErrNotExist) {
				if os.Mkdir(trash, 0o755) == nil || dirExists(trash) {
					made = true
					err = os.Rename(from, to)
				}
			}
			if err != nil {
				os.Remove(from) // gone already, or not movable
			}
		}
	}
}

// emptyTrash deletes at most n files of the trash and reports how many
// it deleted.
func (v *Vault) emptyTrash(n int) int {
	d, err := os.Open(v.trashDir())
	if err != nil {
		return 0 // no trash
	}
	entries, _ := d.ReadDir(n)
	d.Close()
	removed := 0
	for _, e := range entries {
		if os.Remove(filepath.Join(v.trashDir(), e.Name())) == nil {
			removed++
		}
	}
	return removed
}

// dropPacks removes the packs names from this process's lookups (they
// were merged into a pack added before).
func (v *Vault) dropPacks(names []string) {
	v.packs.mu.Lock()
	defer v.packs.mu.Unlock()
	v.packs.packs = slices.DeleteFunc(v.packs.packs, func(p *packIndex) bool { return slices.Contains(names, p.name) })
	v.packs.gen++
}
