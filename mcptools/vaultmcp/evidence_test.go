package vaultmcp

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/thalix/tv/engine"
)

func record(writer, seq int) EvidenceRecord {
	return EvidenceRecord{Time: "2026-01-02T03:04:05Z", Event: EventResolved, Workspace: "ws_aaaaaaaaaaaaaaaaaaaa", Stage: "stages/01-research",
		ContractVersion: strings.Repeat("c", 40), AccessVersion: strings.Repeat("a", 40), Rank: "read",
		Visible: []string{"vault_file_info", "vault_file_find", "vault_file_read", "vault_workspace_walk_test"}, Hidden: 1,
		Result: ResultScoped, Reason: ReasonRank, CorrelationID: fmt.Sprintf("%d-%d", writer, seq)}
}

// checkEvidence checks the bound and that each writer's records are a
// contiguous run (trimming keeps the newest suffix of the file, so a gap
// means a lost record); it returns the records.
func checkEvidence(t *testing.T, path string) []EvidenceRecord {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > MaxEvidenceBytes || fi.Mode().Perm() != 0o600 {
		t.Fatalf("evidence file: %d bytes (max %d), mode %v", fi.Size(), MaxEvidenceBytes, fi.Mode())
	}
	rs := readEvidence(t, path)
	last := map[string]int{}
	for _, r := range rs {
		w, s, _ := strings.Cut(r.CorrelationID, "-")
		n, _ := strconv.Atoi(s)
		if prev, ok := last[w]; ok && n != prev+1 {
			t.Fatalf("writer %s: record %d after %d (lost or reordered)", w, n, prev)
		}
		last[w] = n
	}
	return rs
}

// TestEvidenceBounded: past MaxEvidenceBytes the oldest records go; the
// newest half stays, whole and in order.
func TestEvidenceBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "tv", EvidenceFileName)
	line := len(mustJSON(t, record(0, 0))) + 1
	n := 2*MaxEvidenceBytes/line + 10
	for i := range n {
		if err := AppendEvidence(path, record(0, i)); err != nil {
			t.Fatal(err)
		}
	}
	rs := checkEvidence(t, path)
	if got := rs[len(rs)-1].CorrelationID; got != fmt.Sprintf("0-%d", n-1) {
		t.Fatalf("newest record %s, want 0-%d", got, n-1)
	}
	first, _ := strconv.Atoi(strings.TrimPrefix(rs[0].CorrelationID, "0-"))
	if first+len(rs) != n {
		t.Fatalf("records %d..%d are not the newest contiguous run of %d", first, first+len(rs)-1, n)
	}
	if len(rs) < MaxEvidenceBytes/2/line {
		t.Fatalf("only %d records kept", len(rs))
	}
	if _, err := os.Stat(path + ".lock"); err != nil {
		t.Fatalf("lock file: %v", err)
	}
}

// TestEvidenceConcurrent: goroutines (each with its own descriptor, so the
// flock excludes them) append and trim at once without tearing a record.
func TestEvidenceConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), EvidenceFileName)
	line := len(mustJSON(t, record(0, 0))) + 1
	per := MaxEvidenceBytes/line/2 + 50
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				if err := AppendEvidence(path, record(w, i)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	checkEvidence(t, path)
}

// TestEvidenceProcesses: separate processes share the lock.
func TestEvidenceProcesses(t *testing.T) {
	if p := os.Getenv("TV_EVIDENCE_HELPER"); p != "" {
		w, _ := strconv.Atoi(os.Getenv("TV_EVIDENCE_WRITER"))
		line := len(mustJSON(t, record(0, 0))) + 1
		for i := range MaxEvidenceBytes/line/2 + 50 {
			if err := AppendEvidence(p, record(w, i)); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	path := filepath.Join(t.TempDir(), EvidenceFileName)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestEvidenceProcesses$")
			cmd.Env = append(os.Environ(), "TV_EVIDENCE_HELPER="+path, "TV_EVIDENCE_WRITER="+strconv.Itoa(w))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("writer %d: %v\n%s", w, err, out)
			}
		}()
	}
	wg.Wait()
	checkEvidence(t, path)
}

// TestEvidenceHoldsNoSecrets: the evidence of real resolutions (valid,
// malformed and changing policies) holds no token, no contract text and
// no local path.
func TestEvidenceHoldsNoSecrets(t *testing.T) {
	f := newFixture(t)
	f.grant("bob", engine.RankWrite, "demo:"+stage1)
	body := "# 01 Research\n\nCONTRACT-BODY-MARKER-7731 routes to ../01-research/output/.\n"
	for _, content := range []string{
		"---\nmcp:\n  tools:\n    - vault_file_info\n---\n" + body,
		"---\nmcp:\n  tools:\n    - secret_marker_tool_9921\n---\n" + body,
		"---\nmcp:\n  tools: [vault_file_info\n---\n" + body,
		body,
	} {
		f.put(stage1+"/CONTEXT.md", content)
		for _, who := range []*engine.Credentials{alice, bob} {
			listNames(t, f.server(who, stage1))
		}
	}
	b, err := os.ReadFile(f.evidence)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{alice.Token, bob.Token, "CONTRACT-BODY-MARKER", "secret_marker_tool", "routes to", "mcp:", f.dir, "/tmp", os.TempDir(), "vault.git", "alice@", "bob@"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("evidence holds %q", secret)
		}
	}
	rs := f.records()
	if len(rs) < 8 {
		t.Fatalf("%d records", len(rs))
	}
	for _, r := range rs {
		for _, v := range append([]string{r.Workspace, r.Stage, r.ContractVersion, r.AccessVersion, r.Rank, r.Result, r.Reason, r.CorrelationID}, r.Visible...) {
			if strings.HasPrefix(v, "/") || strings.Contains(v, "\\") {
				t.Errorf("evidence field %q looks like a path", v)
			}
		}
		if r.CorrelationID == "" || r.Time == "" {
			t.Errorf("record %+v", r)
		}
	}
}

func mustJSON(t *testing.T, r EvidenceRecord) []byte {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
