package engine

import (
	"errors"
	"strings"
	"testing"
)

func TestParseAccess(t *testing.T) {
	v := Hash{1}
	for _, tc := range []struct {
		name, json string
		ok         bool
	}{
		{"grants", `[{"user":"alice","rank":"manage"},{"user":"bob","rank":"write","workspace":"ws_aaaaaaaaaaaaaaaaaaaa","folder":"stages/01"}]`, true},
		{"empty", `[]`, true},
		{"not a list", `{"user":"alice"}`, false},
		{"bad rank", `[{"user":"alice","rank":"owner"}]`, false},
		{"bad user", `[{"user":"-x","rank":"read"}]`, false},
		{"template as workspace", `[{"user":"a","rank":"read","workspace":"tpl_aaaaaaaaaaaaaaaaaaaa"}]`, false},
		{"folder without workspace", `[{"user":"a","rank":"read","folder":"x"}]`, false},
		{"unsafe folder", `[{"user":"a","rank":"read","workspace":"ws_aaaaaaaaaaaaaaaaaaaa","folder":"../x"}]`, false},
		{"too large", `[` + strings.Repeat(" ", MaxGrantsBytes) + `]`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := ParseAccess(v, []byte(tc.json))
			if tc.ok != (err == nil) {
				t.Fatalf("ParseAccess: %v, want ok=%v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrRefused) {
				t.Fatalf("error %v does not match ErrRefused", err)
			}
			if a != nil && a.Version() != v {
				t.Fatal("version lost")
			}
		})
	}
}

func TestAccessRankAndDiff(t *testing.T) {
	ws := "ws_aaaaaaaaaaaaaaaaaaaa"
	open, err := ParseAccess(ZeroHash, []byte(`[]`))
	if err != nil {
		t.Fatal(err)
	}
	if !open.Open() || open.Rank("anyone", ws, "x") != RankManage {
		t.Fatal("an open vault gives every identified user manage, as the engine does")
	}
	from, _ := ParseAccess(Hash{1}, []byte(`[{"user":"alice","rank":"manage"},{"user":"bob","rank":"write","workspace":"`+ws+`","folder":"a"}]`))
	to, _ := ParseAccess(Hash{2}, []byte(`[{"user":"alice","rank":"manage"},{"user":"bob","rank":"read","workspace":"`+ws+`","folder":"a"},{"user":"carol","rank":"read"}]`))
	for _, tc := range []struct {
		user, p string
		want    Rank
	}{
		{"bob", "a/b.md", RankWrite}, {"bob", "a", RankWrite}, {"bob", "ab", RankNone}, {"alice", "x", RankManage}, {"carol", "x", RankNone},
	} {
		if got := from.Rank(tc.user, ws, tc.p); got != tc.want {
			t.Errorf("Rank(%s, %s) = %s, want %s", tc.user, tc.p, got, tc.want)
		}
	}
	if !from.HasGrantsInside("bob", ws, "") || from.HasGrantsInside("bob", ws, "a") {
		t.Error("HasGrantsInside: want a grant strictly inside the root, none strictly inside a")
	}
	changes := DiffAccess(from, to)
	if len(changes) != 2 {
		t.Fatalf("DiffAccess: %d changes, want 2 (bob's rank, carol added)", len(changes))
	}
	if from.VaultManagers() != 1 || to.VaultManagers() != 1 {
		t.Error("VaultManagers")
	}
}

func TestCheckSiblingNames(t *testing.T) {
	if err := CheckSiblingNames([]string{"a.md", "b.md"}); err != nil {
		t.Fatal(err)
	}
	if err := CheckSiblingNames([]string{"README.md", "readme.md"}); !errors.Is(err, ErrRefused) {
		t.Fatalf("case-fold collision: %v", err)
	}
}
