package vaultmcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/thalix/tv/atomicfile"
)

// EvidenceFileName is the scope evidence file's name in tv's state directory.
const EvidenceFileName = "scope-evidence.jsonl"

// Evidence events.
const (
	// EventResolved: a resolution with new inputs or a new outcome that
	// left the visible set as it was (or the server's first one).
	EventResolved = "resolved"
	// EventChanged: a resolution that changed the visible set.
	EventChanged = "changed"
)

// EvidenceRecord is one line of the scope evidence file. It holds ids,
// names and codes only: never contract text, credentials or local paths.
type EvidenceRecord struct {
	Time            string   `json:"time"` // RFC 3339, UTC
	Event           string   `json:"event"`
	Workspace       string   `json:"workspace"`        // workspace id
	Stage           string   `json:"stage"`            // stages/NN-slug
	ContractVersion string   `json:"contract_version"` // CONTEXT.md blob id; "" when unread or absent
	AccessVersion   string   `json:"access_version"`   // refs/tv/access commit; "" when the vault has no grants
	Rank            string   `json:"rank"`
	Visible         []string `json:"visible"`
	Hidden          int      `json:"hidden"`
	Result          string   `json:"result"`
	Reason          string   `json:"reason"`
	CorrelationID   string   `json:"correlation_id"`
}

// EvidencePath returns $XDG_STATE_HOME/tv/scope-evidence.jsonl, else
// ~/.local/state/tv/scope-evidence.jsonl.
func EvidencePath(getenv func(string) string) (string, error) {
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "tv", EvidenceFileName), nil
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "tv", EvidenceFileName), nil
	}
	return "", errors.New("cannot locate the scope evidence file: set XDG_STATE_HOME or HOME")
}

// AppendEvidence appends rec as one JSON line to the evidence file at
// path (created 0600 with its directory). Under an exclusive lock on
// path+".lock", shared by every server, it appends and, when the file is
// then over MaxEvidenceBytes, drops the oldest records: the newest ones
// that fit in half of MaxEvidenceBytes are kept, rewritten atomically.
func AppendEvidence(path string, rec EvidenceRecord) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	if len(line) > MaxEvidenceBytes/2 {
		return fmt.Errorf("evidence record of %d bytes is over half of MaxEvidenceBytes (%d)", len(line), MaxEvidenceBytes)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	unlock, err := lockFile(path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(line)
	var size int64
	if err == nil {
		var fi os.FileInfo
		if fi, err = f.Stat(); err == nil {
			size = fi.Size()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil || size <= MaxEvidenceBytes {
		return err
	}
	return trimEvidence(path)
}

// trimEvidence keeps the newest whole records that fit in half of
// MaxEvidenceBytes. The caller holds the lock.
func trimEvidence(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	cut := len(b) - MaxEvidenceBytes/2
	if cut <= 0 {
		return nil
	}
	if b[cut-1] != '\n' {
		i := bytes.IndexByte(b[cut:], '\n')
		if i < 0 {
			cut = len(b)
		} else {
			cut += i + 1
		}
	}
	return atomicfile.Write(path, b[cut:], 0o600)
}
