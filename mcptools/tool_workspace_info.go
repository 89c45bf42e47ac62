package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/thalix/tv/mcptools/mcpkit"
	"github.com/thalix/tv/wsfs"
)

func workspaceArg() mcpkit.Schema {
	return mcpkit.With(mcpkit.Str(`workspace ID from workspace_list: "launch" (default), "worktree:/abs/path" or "checkout:/abs/path"`), "default", KindLaunch)
}

func workspaceInfoSpec() mcpkit.Spec {
	return mcpkit.Spec{
		Name:  "workspace_info",
		Title: "Workspace info",
		Description: "Returns one workspace (default launch): its root path, kind, git branch, HEAD and dirty flag, and the text of its root guidance file (AGENTS.md, else CLAUDE.md), " +
			fmt.Sprintf("truncated at %d bytes (MaxGuidanceBytes) with a flag. Read the guidance before changing the workspace.", MaxGuidanceBytes),
		Input: mcpkit.Object(mcpkit.Schema{"workspace": workspaceArg()}),
		Data: mcpkit.OpenObject(mcpkit.Schema{
			"workspace": workspaceEntrySchema(),
			"guidance_text": mcpkit.Nullable(mcpkit.OpenObject(mcpkit.Schema{
				"file":      mcpkit.Str("AGENTS.md or CLAUDE.md"),
				"text":      mcpkit.Str("the guidance, at most MaxGuidanceBytes"),
				"bytes":     mcpkit.Int("the file's full size"),
				"truncated": mcpkit.Bool("text is the file's start only"),
			}, "file", "text", "bytes", "truncated")),
		}, "workspace", "guidance_text"),
		Workspace:   workspaceRefSchema(),
		Annotations: mcpkit.Annotations{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: false},
	}
}

type workspaceInfoArgs struct {
	Workspace string `json:"workspace"`
}

type guidanceText struct {
	File      string `json:"file"`
	Text      string `json:"text"`
	Bytes     int64  `json:"bytes"`
	Truncated bool   `json:"truncated"`
}

type workspaceInfoData struct {
	Workspace WorkspaceEntry `json:"workspace"`
	Guidance  *guidanceText  `json:"guidance_text"`
}

func (l *Local) workspaceInfo(ctx context.Context, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a workspaceInfoArgs
	if err := mcpkit.DecodeArgs(raw, &a); err != nil {
		return nil, err
	}
	w, err := l.resolve(a.Workspace)
	if err != nil {
		return nil, err
	}
	d := workspaceInfoData{Workspace: w.entry(ctx)}
	if d.Workspace.HasGuidance {
		d.Guidance = readGuidance(w.Root, d.Workspace.Guidance)
	}
	return l.success(w, d)
}

func readGuidance(root, name string) *guidanceText {
	f, err := wsfs.Open(root)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, st, err := f.ReadHead(name, MaxGuidanceBytes)
	if err != nil {
		return nil
	}
	for i := 0; i < utf8.UTFMax-1 && len(b) > 0 && !utf8.Valid(b); i++ {
		b = b[:len(b)-1] // a rune cut at the truncation point
	}
	return &guidanceText{File: name, Text: strings.ToValidUTF8(string(b), "\uFFFD"), Bytes: st.Size(), Truncated: st.Size() > int64(len(b))}
}
