package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMCPLocalEditRefusesBinary: edit_tool refuses a file with a NUL byte
// exactly as read_file does, and leaves it byte for byte.
func TestMCPLocalEditRefusesBinary(t *testing.T) {
	e := newLocalEnv(t)
	dir := e.repo("repo", map[string]string{"a.txt": "a\n"})
	bin := []byte("header\x00find me\n")
	os.WriteFile(filepath.Join(dir, "nul.dat"), bin, 0o644)
	cs := e.start(dir, "")
	call(t, cs, "read_file", map[string]any{"path": "nul.dat"}).failed(t, "not UTF-8 text")
	call(t, cs, "edit_tool", map[string]any{"path": "nul.dat", "edits": []map[string]any{{"op": "replace", "find": "find me", "text": "changed"}}}).failed(t, "not UTF-8 text", "nul.dat")
	if got, _ := os.ReadFile(filepath.Join(dir, "nul.dat")); string(got) != string(bin) {
		t.Fatalf("edit_tool changed the binary file: %q", got)
	}
}

// TestMCPLocalWriteRefusesGitLookAlikes: write_file and edit_tool refuse
// targets that git, macOS or Windows would treat as .git or .gitmodules,
// and create nothing.
func TestMCPLocalWriteRefusesGitLookAlikes(t *testing.T) {
	e := newLocalEnv(t)
	dir := e.repo("repo", map[string]string{"a.txt": "a\n"})
	cs := e.start(dir, "")
	for _, tc := range []struct{ path, word string }{
		{".g\u200cit/config", ".git"},
		{"sub/.GIT./hooks/pre-commit", ".git"},
		{"git~1/HEAD", ".git"},
		{".gitmodules", ".gitmodules"},
		{"GITMOD~1", ".gitmodules"},
		{"notes./a.md", "dot or a space"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			call(t, cs, "write_file", map[string]any{"path": tc.path, "content": "[core]\n\thooksPath = /tmp\n"}).failed(t, tc.word)
			call(t, cs, "edit_tool", map[string]any{"path": tc.path, "edits": []map[string]any{{"op": "replace", "find": "a", "text": "b"}}}).failed(t)
			first := filepath.Join(dir, filepath.FromSlash(tc.path))
			for filepath.Dir(first) != dir {
				first = filepath.Dir(first)
			}
			if _, err := os.Lstat(first); err == nil {
				t.Fatalf("%s was created", first)
			}
		})
	}
}
