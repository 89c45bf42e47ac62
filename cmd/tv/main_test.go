package main

import "testing"

// TestServesLongLived: only the two MCP servers count as long-lived (their
// stat cache mappings are released); every other command line, including
// help about the servers, is a command that exits.
func TestServesLongLived(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"mcp", "local"}, true},
		{[]string{"mcp", "serve", "--stage", "01-research"}, true},
		{[]string{"--json", "mcp", "local"}, true},
		{[]string{"mcp", "install"}, false},
		{[]string{"mcp", "doctor"}, false},
		{[]string{"mcp"}, false},
		{[]string{"workspace", "walk-test", "mcp"}, false},
		{[]string{"--", "mcp", "local"}, false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := servesLongLived(tt.args); got != tt.want {
			t.Errorf("servesLongLived(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}
