package gitbackend

import "github.com/thalix/tv/engine"

// DecodeTree parses the content of tree object id into its entries in
// stored order, keeping every mode as stored (symlinks 120000 and gitlinks
// 160000 included), so a reader of foreign objects can refuse them.
func DecodeTree(id engine.Hash, data []byte) ([]engine.TreeEntry, error) {
	return decodeTree(id, data)
}

// DecodeCommit parses the content of commit object id. Headers tv does not
// use are skipped.
func DecodeCommit(id engine.Hash, data []byte) (*engine.Commit, error) {
	return decodeCommit(id, data)
}
