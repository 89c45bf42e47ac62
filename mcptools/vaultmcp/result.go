package vaultmcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/icm"
	"github.com/thalix/tv/mcptools/mcpkit"
)

// Repository names the workspace a result is about.
type Repository struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Envelope is the structured content of every successful result.
type Envelope struct {
	CapturedAt int64       `json:"captured_at"` // Unix seconds
	Repository *Repository `json:"repository"`  // null for vault-wide discovery
	Data       any         `json:"data"`
}

// repositorySchema is the output schema of the envelope's repository.
func repositorySchema() mcpkit.Schema {
	return mcpkit.Nullable(mcpkit.OpenObject(mcpkit.Schema{
		"id":   mcpkit.Str("workspace id (ws_…)"),
		"name": mcpkit.Str("workspace name"),
	}, "id", "name"))
}

// OutputSchema is the output schema of a vault tool whose data member has
// schema data: the envelope {captured_at, repository, data}.
func OutputSchema(data mcpkit.Schema) mcpkit.Schema {
	return mcpkit.OpenObject(mcpkit.Schema{
		"captured_at": mcpkit.Int("when the result was captured, Unix seconds"),
		"repository":  mcpkit.With(repositorySchema(), "description", "the workspace the result is about ({id, name}), or null for vault-wide discovery"),
		"data":        data,
	}, "captured_at", "repository", "data")
}

// With is mcpkit.With, re-exported for brevity in tool files.
var With = mcpkit.With

// encode serializes the envelope; over MaxStructuredBytes it reports
// errTooLarge.
func encode(now time.Time, repo *Repository, data any) ([]byte, error) {
	b, err := json.Marshal(Envelope{CapturedAt: now.Unix(), Repository: repo, Data: data})
	if err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	if len(b) > MaxStructuredBytes {
		return b, errTooLarge
	}
	return b, nil
}

var errTooLarge = fmt.Errorf("%w: the result is over the %d-byte structured result limit (MaxStructuredBytes)", engine.ErrRefused, MaxStructuredBytes)

// fits reports whether the envelope of data stays within MaxStructuredBytes
// (with a captured_at wider than any real one).
func fits(repo *Repository, data any) bool {
	_, err := encode(time.Unix(1<<40, 0), repo, data)
	return err == nil
}

// fitCount returns the largest n in [0, max] for which build(n) fits
// (build must grow with n), so lists are cut to the structured cap.
func fitCount(max int, repo *Repository, build func(n int) any) int {
	if fits(repo, build(max)) {
		return max
	}
	lo, hi := 0, max // build(lo) is assumed to fit; build(hi) does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if fits(repo, build(mid)) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// success builds the result: the envelope as structured content and, as
// the text fallback, the same JSON.
func success(now time.Time, repo *Repository, data any) (*mcp.CallToolResult, error) {
	b, err := encode(now, repo, data)
	if err != nil {
		return nil, err
	}
	return mcpkit.EncodedResult(b), nil
}

// errorCode names the kind of a domain failure, as `tv --json` does.
func errorCode(err error) string {
	for _, k := range []struct {
		err  error
		code string
	}{
		{mcpkit.ErrBadArguments, "invalid_arguments"},
		{engine.ErrUsage, "usage"},
		{engine.ErrInvalidTree, "invalid_tree"},
		{engine.ErrConflict, "conflict"},
		{engine.ErrPermission, "permission_denied"},
		{engine.ErrNotFound, "not_found"},
		{engine.ErrRefused, "refused"},
	} {
		if errors.Is(err, k.err) {
			return k.code
		}
	}
	return "internal"
}

// failure turns a tool's error into an isError result: the tool, the
// error's kind and its message, plus the findings of an invalid tree.
func failure(tool string, err error) *mcp.CallToolResult {
	msg := err.Error()
	var inv *engine.InvalidTreeError
	if errors.As(err, &inv) {
		msg += findingsText(inv.Findings)
	}
	return mcpkit.Failure("%s failed (%s): %s", tool, errorCode(err), msg)
}

func findingsText(fs []icm.Finding) string {
	var b strings.Builder
	for i, f := range fs {
		if i == MaxFindingsShown {
			fmt.Fprintf(&b, "\n… and %d more (MaxFindingsShown)", len(fs)-i)
			break
		}
		fmt.Fprintf(&b, "\n%s %s %s:%d: %s", f.Severity, f.Rule, f.Path, f.Line, f.Message)
	}
	return b.String()
}
