package mcptools

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestLimitLines(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"` + strings.Repeat("a", 100) + `"}}`
	in := "first\n" + big + "\n" + strings.Repeat("b", 70) + "\r\nlast-no-newline"
	var out, reply bytes.Buffer
	if err := LimitLines(strings.NewReader(in), &out, &reply, 60); err != nil {
		t.Fatal(err)
	}
	if out.String() != "first\nlast-no-newline\n" {
		t.Fatalf("passed %q", out.String())
	}
	lines := strings.Split(strings.TrimSpace(reply.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("replies %q", reply.String())
	}
	var r struct {
		ID    any
		Error struct {
			Code    int
			Message string
		}
	}
	json.Unmarshal([]byte(lines[0]), &r)
	if r.ID != float64(7) || r.Error.Code != CodeInvalidRequest || !strings.Contains(r.Error.Message, "60-byte") {
		t.Fatalf("reply %s", lines[0])
	}
	json.Unmarshal([]byte(lines[1]), &r)
	if r.ID != nil {
		t.Fatalf("reply %s", lines[1])
	}
	// Exactly at the limit passes.
	out.Reset()
	reply.Reset()
	LimitLines(strings.NewReader(strings.Repeat("c", 60)+"\n"), &out, &reply, 60)
	if out.Len() != 61 || reply.Len() != 0 {
		t.Fatalf("limit line: %d %q", out.Len(), reply.String())
	}
}
