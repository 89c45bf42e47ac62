package icm

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

var testTools = KnownTools()

func TestParsePolicyValid(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    []string
	}{
		{"block", "---\nmcp:\n  tools:\n    - vault_file_info\n    - vault_workspace_commit\n---\n# Stage\n",
			[]string{"vault_file_info", "vault_workspace_commit"}},
		{"sequence not indented", "---\nmcp:\n  tools:\n  - vault_file_read\n---\n", []string{"vault_file_read"}},
		{"flow sequence", "---\nmcp:\n  tools: [vault_file_find, vault_file_read]\n---\n", []string{"vault_file_find", "vault_file_read"}},
		{"flow everything", "---\nmcp: {tools: [vault_file_info]}\n---\n", []string{"vault_file_info"}},
		{"quoted entries", "---\nmcp:\n  tools:\n    - \"vault_file_info\"\n    - 'vault_file_read'\n---\n", []string{"vault_file_info", "vault_file_read"}},
		{"quoted keys", "---\n\"mcp\":\n  'tools':\n    - vault_file_info\n---\n", []string{"vault_file_info"}},
		{"comments", "---\n# policy\nmcp: # scoped\n  tools:\n    - vault_file_info # read metadata\n---\n", []string{"vault_file_info"}},
		{"crlf", "---\r\nmcp:\r\n  tools:\r\n    - vault_file_info\r\n---\r\nbody\r\n", []string{"vault_file_info"}},
		{"no trailing newline after close", "---\nmcp:\n  tools:\n    - vault_file_info\n---", []string{"vault_file_info"}},
		{"all known tools, declared order", "---\nmcp:\n  tools:\n    - vault_workspace_commit\n    - vault_workspace_walk_test\n    - vault_file_read\n    - vault_file_find\n    - vault_file_info\n---\n",
			[]string{"vault_workspace_commit", "vault_workspace_walk_test", "vault_file_read", "vault_file_find", "vault_file_info"}},
		{"thematic break later is body", "---\nmcp:\n  tools: [vault_file_info]\n---\n# T\n\n---\n\nmore\n", []string{"vault_file_info"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParsePolicy([]byte(tc.content), testTools)
			if err != nil {
				t.Fatalf("ParsePolicy: %v", err)
			}
			if p == nil || !slices.Equal(p.Tools, tc.want) {
				t.Fatalf("tools = %v, want %v", p, tc.want)
			}
			for _, tool := range tc.want {
				if !p.Allows(tool) {
					t.Errorf("Allows(%q) = false", tool)
				}
			}
			if p.Allows("vault_other") {
				t.Errorf("Allows(vault_other) = true")
			}
			again, err := ParsePolicy(p.Frontmatter(), testTools)
			if err != nil || !slices.Equal(again.Tools, p.Tools) {
				t.Fatalf("round trip of %q: %v, %v", p.Frontmatter(), again, err)
			}
		})
	}
}

func TestParsePolicyNone(t *testing.T) {
	for _, content := range []string{
		"",
		"# Stage\n\nNo policy.\n",
		"# Stage\n---\nmcp:\n  tools: [vault_file_info]\n---\n", // a later block is no frontmatter
		"----\nmcp:\n  tools: [vault_file_info]\n----\n",        // thematic break, not a delimiter
		"text\n\n---\n",
	} {
		p, err := ParsePolicy([]byte(content), testTools)
		if p != nil || err != nil {
			t.Errorf("ParsePolicy(%q) = %v, %v; want nil, nil", content, p, err)
		}
	}
	var nilPolicy *Policy
	if nilPolicy.Allows("vault_file_info") {
		t.Error("a nil policy allows a tool")
	}
}

// TestParsePolicyInvalid is the table of malformed policies: each fails
// closed with its specific reason code and line.
func TestParsePolicyInvalid(t *testing.T) {
	many := "---\nmcp:\n  tools:\n"
	for i := 0; i <= MaxPolicyTools; i++ {
		many += fmt.Sprintf("    - tool_%d\n", i)
	}
	many += "---\n"
	big := "---\nmcp:\n  tools:\n    - vault_file_info\n" + strings.Repeat("# padding comment line\n", MaxPolicyBytes/20) + "---\n"

	tests := []struct {
		name    string
		content string
		reason  string
		line    int
	}{
		{"bom before opening", "\uFEFF---\nmcp:\n  tools: [vault_file_info]\n---\n", ReasonNotFirst, 1},
		{"blank line before opening", "\n---\nmcp:\n  tools: [vault_file_info]\n---\n", ReasonNotFirst, 2},
		{"spaces line before opening", "  \n\t\n---\nmcp:\n---\n", ReasonNotFirst, 3},
		{"opening with trailing blank", "--- \nmcp:\n  tools: [vault_file_info]\n---\n", ReasonBadDelimiter, 1},
		{"unterminated", "---\nmcp:\n  tools: [vault_file_info]\n", ReasonUnterminated, 1},
		{"only opening", "---", ReasonUnterminated, 1},
		{"closing with trailing blank", "---\nmcp:\n  tools: [vault_file_info]\n--- \n", ReasonUnterminated, 1},
		{"too large", big, ReasonTooLarge, 1},
		{"second document", "---\nmcp:\n  tools: [vault_file_info]\n--- \nmcp: {tools: [vault_workspace_commit]}\n---\n", ReasonDocumentMarker, 4},
		{"document end marker", "---\nmcp:\n  tools: [vault_file_info]\n...\n---\n", ReasonDocumentMarker, 4},
		{"yaml directive", "---\n%YAML 1.2\nmcp:\n  tools: [vault_file_info]\n---\n", ReasonDirective, 2},
		{"tag directive", "---\n%TAG ! tag:evil,2000:\nmcp:\n  tools: [vault_file_info]\n---\n", ReasonDirective, 2},
		{"tab indentation", "---\nmcp:\n\ttools: [vault_file_info]\n---\n", ReasonMalformedYAML, 3},
		{"unclosed flow", "---\nmcp:\n  tools: [vault_file_info\n---\n", ReasonMalformedYAML, 0},
		{"bad indentation", "---\nmcp:\n  tools:\n    - vault_file_info\n   - vault_file_read\n---\n", ReasonMalformedYAML, 0},
		{"empty block", "---\n---\n", ReasonEmpty, 1},
		{"only comments", "---\n# nothing\n---\n", ReasonEmpty, 1},
		{"alias entry", "---\nx: &t vault_file_info\nmcp:\n  tools: [*t]\n---\n", ReasonAlias, 4},
		{"alias sequence", "---\nmcp:\n  tools: &l [vault_file_info]\n  tools: *l\n---\n", ReasonAlias, 4},
		{"billion laughs", "---\na: &a [x, x, x, x]\nb: &b [*a, *a, *a, *a]\nc: &c [*b, *b, *b, *b]\nmcp:\n  tools: *c\n---\n", ReasonAlias, 3},
		{"alias merge", "---\nbase: &b {tools: [vault_file_info]}\nmcp:\n  <<: *b\n---\n", ReasonAlias, 4},
		{"alias only", "---\nmcp:\n  tools: [*t]\n---\n", ReasonMalformedYAML, 0},
		{"anchored sequence", "---\nmcp:\n  tools: &list\n    - vault_file_info\n---\n", ReasonAnchor, 3},
		{"anchored mcp", "---\nmcp: &m {tools: [vault_file_info]}\n---\n", ReasonAnchor, 2},
		{"explicit str tag", "---\nmcp:\n  tools:\n    - !!str vault_file_info\n---\n", ReasonTag, 4},
		{"local tag", "---\nmcp: !policy\n  tools: [vault_file_info]\n---\n", ReasonTag, 2},
		{"tagged seq", "---\nmcp:\n  tools: !!seq [vault_file_info]\n---\n", ReasonTag, 3},
		{"merge key", "---\nmcp:\n  <<: {tools: [vault_file_info]}\n---\n", ReasonMergeKey, 3},
		{"top level sequence", "---\n- vault_file_info\n---\n", ReasonNotMapping, 2},
		{"top level scalar", "---\nvault_file_info\n---\n", ReasonNotMapping, 2},
		{"mcp is a sequence", "---\nmcp: [vault_file_info]\n---\n", ReasonNotMapping, 2},
		{"mcp is a string", "---\nmcp: vault_file_info\n---\n", ReasonNotMapping, 2},
		{"unknown top key", "---\nmcp:\n  tools: [vault_file_info]\nowner: me\n---\n", ReasonUnknownKey, 4},
		{"unknown key first", "---\nname: research\nmcp:\n  tools: [vault_file_info]\n---\n", ReasonUnknownKey, 2},
		{"unknown key under mcp", "---\nmcp:\n  tools: [vault_file_info]\n  rank: write\n---\n", ReasonUnknownKey, 4},
		{"misspelled tools", "---\nmcp:\n  tool: [vault_file_info]\n---\n", ReasonUnknownKey, 3},
		{"uppercase key", "---\nMCP:\n  tools: [vault_file_info]\n---\n", ReasonUnknownKey, 2},
		{"non-string key", "---\n1: x\n---\n", ReasonUnknownKey, 2},
		{"complex key", "---\n? [mcp]\n: x\n---\n", ReasonUnknownKey, 2},
		{"duplicate mcp", "---\nmcp:\n  tools: [vault_file_info]\nmcp:\n  tools: [vault_workspace_commit]\n---\n", ReasonDuplicateKey, 4},
		{"duplicate tools", "---\nmcp:\n  tools: [vault_file_info]\n  tools: [vault_workspace_commit]\n---\n", ReasonDuplicateKey, 4},
		{"empty mapping", "---\n{}\n---\n", ReasonMissingMCP, 2},
		{"mcp null", "---\nmcp:\n---\n", ReasonMissingTools, 2},
		{"mcp tilde", "---\nmcp: ~\n---\n", ReasonMissingTools, 2},
		{"mcp empty mapping", "---\nmcp: {}\n---\n", ReasonMissingTools, 2},
		{"tools null", "---\nmcp:\n  tools:\n---\n", ReasonNoTools, 3},
		{"tools empty flow", "---\nmcp:\n  tools: []\n---\n", ReasonNoTools, 3},
		{"tools scalar", "---\nmcp:\n  tools: vault_file_info\n---\n", ReasonNotSequence, 3},
		{"tools mapping", "---\nmcp:\n  tools:\n    vault_file_info: true\n---\n", ReasonNotSequence, 4},
		{"too many tools", many, ReasonTooManyTools, 4},
		{"nested sequence", "---\nmcp:\n  tools:\n    - [vault_file_info]\n---\n", ReasonNested, 4},
		{"nested mapping", "---\nmcp:\n  tools:\n    - name: vault_file_info\n---\n", ReasonNested, 4},
		{"literal block entry", "---\nmcp:\n  tools:\n    - |\n      vault_file_info\n---\n", ReasonBlockScalar, 4},
		{"folded block entry", "---\nmcp:\n  tools:\n    - >-\n      vault_file_info\n---\n", ReasonBlockScalar, 4},
		{"empty entry", "---\nmcp:\n  tools:\n    - vault_file_info\n    -\n---\n", ReasonEmptyEntry, 5},
		{"empty quoted entry", "---\nmcp:\n  tools: [vault_file_info, \"\"]\n---\n", ReasonEmptyEntry, 3},
		{"integer entry", "---\nmcp:\n  tools:\n    - 1\n---\n", ReasonNonString, 4},
		{"bool entry", "---\nmcp:\n  tools:\n    - true\n---\n", ReasonNonString, 4},
		{"null entry", "---\nmcp:\n  tools:\n    - null\n---\n", ReasonNonString, 4},
		{"tilde entry", "---\nmcp:\n  tools: [~]\n---\n", ReasonNonString, 3},
		{"float entry", "---\nmcp:\n  tools: [1.5]\n---\n", ReasonNonString, 3},
		{"unknown tool", "---\nmcp:\n  tools:\n    - vault_file_info\n    - vault_file_delete\n---\n", ReasonUnknownTool, 5},
		{"tool with blank", "---\nmcp:\n  tools: [\" vault_file_info\"]\n---\n", ReasonUnknownTool, 3},
		{"tool wrong case", "---\nmcp:\n  tools: [Vault_File_Info]\n---\n", ReasonUnknownTool, 3},
		{"duplicate tool", "---\nmcp:\n  tools:\n    - vault_file_info\n    - vault_file_read\n    - vault_file_info\n---\n", ReasonDuplicateTool, 6},
		{"duplicate via quoting", "---\nmcp:\n  tools: [vault_file_info, 'vault_file_info']\n---\n", ReasonDuplicateTool, 3},
		{"nul byte", "---\nmcp:\n  tools: [vault_file_info\x00]\n---\n", ReasonMalformedYAML, 0},
		{"invalid utf-8", "---\nmcp:\n  tools: [\xff\xfe]\n---\n", ReasonMalformedYAML, 0},
	}
	if len(tests) < 30 {
		t.Fatalf("only %d malformed cases", len(tests))
	}
	seen := map[string]bool{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParsePolicy([]byte(tc.content), testTools)
			if err == nil {
				t.Fatalf("ParsePolicy accepted %q as %v", tc.content, p.Tools)
			}
			if p != nil {
				t.Errorf("policy %v returned with an error", p)
			}
			if !errors.Is(err, ErrPolicy) {
				t.Errorf("error %v does not wrap ErrPolicy", err)
			}
			if got := PolicyReason(err); got != tc.reason {
				t.Errorf("reason = %q, want %q (%v)", got, tc.reason, err)
			}
			var pe *PolicyError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *PolicyError", err)
			}
			if tc.line > 0 && pe.Line != tc.line {
				t.Errorf("line = %d, want %d (%v)", pe.Line, tc.line, err)
			}
			if pe.Line < 1 {
				t.Errorf("line = %d, want >= 1", pe.Line)
			}
			if !strings.Contains(err.Error(), "("+tc.reason+")") {
				t.Errorf("message %q does not name the reason", err)
			}
		})
		seen[tc.reason] = true
	}
	for _, r := range allReasons {
		if !seen[r] {
			t.Errorf("reason %q has no malformed case", r)
		}
	}
}

// allReasons must list every reason constant; PolicyReasons must agree.
var allReasons = PolicyReasons()

func TestPolicyReasons(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range allReasons {
		if seen[r] || r == "" || strings.ToLower(r) != r {
			t.Errorf("reason %q empty, duplicated or not lowercase", r)
		}
		seen[r] = true
	}
	if len(allReasons) != 26 {
		t.Errorf("%d reasons; update the table and the report when adding one", len(allReasons))
	}
}

func TestParsePolicyLimitsInMessages(t *testing.T) {
	many := "---\nmcp:\n  tools:\n" + strings.Repeat("    - vault_file_info\n", MaxPolicyTools+1) + "---\n"
	if err := mustErr(t, many); !strings.Contains(err.Error(), fmt.Sprint(MaxPolicyTools)) {
		t.Errorf("message %q does not print MaxPolicyTools", err)
	}
	big := "---\n" + strings.Repeat("#\n", MaxPolicyBytes) + "---\n"
	if err := mustErr(t, big); !strings.Contains(err.Error(), fmt.Sprint(MaxPolicyBytes)) {
		t.Errorf("message %q does not print MaxPolicyBytes", err)
	}
	// Exactly at the limit is accepted.
	head := "---\nmcp:\n  tools: [vault_file_info]\n"
	pad := MaxPolicyBytes - len(head) - len("---\n")
	exact := head + "#" + strings.Repeat("x", pad-2) + "\n---\n"
	if len(exact) != MaxPolicyBytes {
		t.Fatalf("bad test: %d bytes", len(exact))
	}
	if _, err := ParsePolicy([]byte(exact), testTools); err != nil {
		t.Errorf("policy of exactly MaxPolicyBytes: %v", err)
	}
	if PolicyReason(mustErr(t, head+"#"+strings.Repeat("x", pad-1)+"\n---\n")) != ReasonTooLarge {
		t.Error("one byte over MaxPolicyBytes accepted")
	}
	// Exactly MaxPolicyTools distinct known tools are accepted.
	known := make([]string, MaxPolicyTools)
	c := "---\nmcp:\n  tools:\n"
	for i := range known {
		known[i] = fmt.Sprintf("t%d", i)
		c += "    - " + known[i] + "\n"
	}
	if p, err := ParsePolicy([]byte(c+"---\n"), known); err != nil || len(p.Tools) != MaxPolicyTools {
		t.Errorf("MaxPolicyTools tools: %v, %v", p, err)
	}
}

func TestPolicyReasonOther(t *testing.T) {
	if r := PolicyReason(errors.New("x")); r != "" {
		t.Errorf("PolicyReason(plain) = %q", r)
	}
	if r := PolicyReason(nil); r != "" {
		t.Errorf("PolicyReason(nil) = %q", r)
	}
	wrapped := fmt.Errorf("stage 01: %w", &PolicyError{Reason: ReasonAlias, Line: 3, Detail: "d"})
	if r := PolicyReason(wrapped); r != ReasonAlias {
		t.Errorf("PolicyReason(wrapped) = %q", r)
	}
}

func mustErr(t *testing.T, content string) error {
	t.Helper()
	p, err := ParsePolicy([]byte(content), testTools)
	if err == nil {
		t.Fatalf("ParsePolicy(%q) accepted %v", content, p)
	}
	return err
}
