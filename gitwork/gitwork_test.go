package gitwork

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseListing(t *testing.T) {
	id := strings.Repeat("a", 40)
	cases := []struct {
		name  string
		out   string
		index bool
		want  []File
		err   error
		msg   string
	}{
		{"index", "100644 " + id + " 0\tCONTEXT.md\x00100755 " + id + " 0\tbin/run.sh\x00120000 " + id + " 0\tlink\x00", true,
			[]File{{Path: "CONTEXT.md", Mode: 0o100644, ID: id}, {Path: "bin/run.sh", Mode: 0o100755, ID: id}, {Path: "link", Mode: 0o120000, ID: id}}, nil, ""},
		{"tree", "100644 blob " + id + "\tname with\ttab.md\x00", false,
			[]File{{Path: "name with\ttab.md", Mode: 0o100644, ID: id}}, nil, ""},
		{"unmerged", "100644 " + id + " 2\ta.md\x00", true, nil, ErrBroken, "a.md is unmerged"},
		{"submodule in index", "160000 " + id + " 0\tvendor/lib\x00", true, nil, ErrSubmodule, "vendor/lib is a submodule"},
		{"submodule in tree", "160000 commit " + id + "\tvendor/lib\x00", false, nil, ErrSubmodule, "vendor/lib is a submodule"},
		{"garbage", "not a listing\x00", true, nil, ErrBroken, "unexpected listing line"},
		{"bad mode", "10x644 " + id + " 0\ta\x00", true, nil, ErrBroken, "bad mode"},
		{"empty", "", true, nil, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseListing([]byte(tc.out), tc.index)
			if tc.err != nil {
				if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.msg) {
					t.Fatalf("err = %v, want %v with %q", err, tc.err, tc.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("entry %d = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
	if (File{Mode: 0o120000}).Type() != fs.ModeSymlink || (File{Mode: 0o100755}).Type() != 0 || !(File{Mode: 0o100755}).Executable() {
		t.Fatal("File.Type / Executable")
	}
}

func TestFind(t *testing.T) {
	root := t.TempDir()
	top := filepath.Join(root, "repo")
	deep := filepath.Join(top, "a", "b")
	if err := os.MkdirAll(filepath.Join(top, ".git", "info"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := Find(deep)
	if err != nil || r.Top != top || r.GitDir != filepath.Join(top, ".git") {
		t.Fatalf("Find = %+v, %v", r, err)
	}
	if got := r.InfoExclude(); got != filepath.Join(top, ".git", "info", "exclude") {
		t.Fatalf("InfoExclude = %s", got)
	}
	// A linked worktree: .git is a file naming its git dir, whose
	// commondir holds info/exclude.
	wt := filepath.Join(root, "wt")
	gd := filepath.Join(top, ".git", "worktrees", "wt")
	if err := os.MkdirAll(gd, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+gd+"\n"), 0o644)
	os.WriteFile(filepath.Join(gd, "commondir"), []byte("../..\n"), 0o644)
	r, err = Find(wt)
	if err != nil || r.Top != wt || r.GitDir != gd {
		t.Fatalf("Find(worktree) = %+v, %v", r, err)
	}
	if got := r.InfoExclude(); got != filepath.Join(top, ".git", "info", "exclude") {
		t.Fatalf("worktree InfoExclude = %s", got)
	}
	if _, err := Find(filepath.Join(root)); !errors.Is(err, ErrNotRepository) {
		t.Fatalf("Find outside = %v", err)
	}
	if _, ok := At(deep); ok {
		t.Fatal("At(a sub-folder) found a work tree root")
	}
}

func FuzzParseListing(f *testing.F) {
	id := strings.Repeat("b", 40)
	f.Add([]byte("100644 "+id+" 0\tCONTEXT.md\x00"), true)
	f.Add([]byte("160000 commit "+id+"\tx\x00040000 tree "+id+"\td\x00"), false)
	f.Fuzz(func(t *testing.T, out []byte, index bool) {
		files, err := parseListing(out, index)
		if err != nil {
			return
		}
		for _, f := range files {
			if f.Mode == 0o160000 || f.Mode&0o170000 == 0o040000 {
				t.Fatalf("a gitlink or tree entry was listed: %+v", f)
			}
		}
	})
}
