package tvcmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/thalix/tv/atomicfile"
	"github.com/thalix/tv/engine"
	"github.com/thalix/tv/gitbackend"
	"github.com/urfave/cli/v3"
)

func (a *app) vaultCommand() *cli.Command {
	return &cli.Command{
		Name:  "vault",
		Usage: "inspect, choose, create and publish vaults",
		Commands: []*cli.Command{{
			Name:      "info",
			Usage:     "location, id, workspaces and templates, size; for a URL also cache, last sync, enforcement, capabilities",
			UsageText: "tv vault info [--json]",
			Action:    a.action(a.runVaultInfo),
		}, {
			Name:      "use",
			Usage:     "record the default vault (a path or a git URL) in the config dir",
			UsageText: "tv vault use URL|PATH [--json]",
			Action:    a.action(a.runVaultUse),
		}, {
			Name:      "init",
			Usage:     "create an empty vault repository fit to be served by any git server",
			UsageText: "tv vault init --bare PATH [--json]",
			Flags:     []cli.Flag{&cli.BoolFlag{Name: "bare", Usage: "a bare repository (the only kind)", Required: true}},
			Action:    a.action(a.runVaultInit),
		}, {
			Name:      "push",
			Usage:     "publish the current local vault (every refs/tv/ ref) to an empty remote repository",
			UsageText: "tv vault push URL [--json]",
			Action:    a.action(a.runVaultPush),
		}, {
			Name:      "doctor",
			Usage:     "report stale ref lock files left by killed processes; --fix removes them",
			UsageText: "tv vault doctor [--fix] [--json]",
			Flags:     []cli.Flag{&cli.BoolFlag{Name: "fix", Usage: "remove the stale lock files"}},
			Action:    a.action(a.runVaultDoctor),
		}},
	}
}

// vaultInfo is the document of `tv vault info --json`.
type vaultInfo struct {
	Path         string   `json:"vault"`
	ID           string   `json:"vault_id"`
	Workspaces   int      `json:"workspaces"`
	Templates    int      `json:"templates"`
	DiskBytes    int64    `json:"disk_bytes"`
	URL          string   `json:"url,omitempty"`
	Cache        string   `json:"cache,omitempty"`
	LastSync     string   `json:"last_sync_at,omitempty"`
	Offline      bool     `json:"offline,omitempty"`
	Enforced     *bool    `json:"enforced,omitempty"`
	Capabilities []string `json:"capabilities,omitempty"`
}

func (a *app) runVaultInfo(ctx context.Context, cmd *cli.Command) error {
	if err := exactArgs(cmd, 0, "no positional arguments"); err != nil {
		return err
	}
	v, err := a.openVault()
	if err != nil {
		return err
	}
	st, err := v.Stats(ctx)
	if err != nil {
		return err
	}
	out := vaultInfo{Path: v.Path(), ID: v.ID(), Workspaces: st.Workspaces, Templates: st.Templates, DiskBytes: st.DiskBytes}
	if r, ok := v.(*gitbackend.Remote); ok {
		out.URL, out.Cache = r.Location().URL, r.CacheDir()
		when, why := r.Offline()
		off := why != nil
		out.Offline = off
		if !when.IsZero() {
			out.LastSync = when.UTC().Format(time.RFC3339)
		}
		if !off {
			caps, enforced, err := r.Capabilities(ctx)
			if err != nil {
				return err
			}
			out.Capabilities, out.Enforced = caps, &enforced
		}
	}
	return a.output(out, func(w io.Writer) {
		fmt.Fprintf(w, "vault      %s\nid         %s\nworkspaces %d\ntemplates  %d\nsize       %s\n", out.Path, out.ID, out.Workspaces, out.Templates, humanBytes(out.DiskBytes))
		if out.URL == "" {
			return
		}
		fmt.Fprintf(w, "cache      %s\n", out.Cache)
		sync := out.LastSync
		if out.Offline {
			sync += " (server not reached: answering from the cache)"
		}
		fmt.Fprintf(w, "last sync  %s\n", sync)
		if out.Enforced != nil {
			fmt.Fprintf(w, "enforced   %v\ncapabilities %s\n", *out.Enforced, strings.Join(out.Capabilities, " "))
		}
	})
}

func (a *app) runVaultUse(_ context.Context, cmd *cli.Command) error {
	if err := exactArgs(cmd, 1, "one vault location: a path or a git URL"); err != nil {
		return err
	}
	loc, err := gitbackend.ParseLocation(cmd.Args().First())
	if err != nil {
		return err
	}
	path, err := defaultVaultFile(a.io.Getenv)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if err := atomicfile.Write(path, []byte(loc.String()+"\n"), 0o600); err != nil {
		return err
	}
	out := map[string]any{"vault": loc.String(), "remote": loc.IsRemote(), "file": path}
	return a.output(out, func(w io.Writer) {
		fmt.Fprintf(w, "Default vault: %s\n", loc)
		if a.io.Getenv("TV_VAULT") != "" {
			fmt.Fprintf(w, "Note: TV_VAULT is set and takes precedence.\n")
		}
	})
}

func (a *app) runVaultInit(_ context.Context, cmd *cli.Command) error {
	if err := exactArgs(cmd, 1, "one path for the new bare vault repository"); err != nil {
		return err
	}
	loc, err := gitbackend.ParseLocation(cmd.Args().First())
	if err != nil {
		return err
	}
	if loc.IsRemote() {
		return usagef("tv vault init --bare takes a path on this machine (run it on the server, or push an existing vault with `tv vault push %s`)", loc)
	}
	if _, err := os.Stat(loc.Path); err == nil && !isEmptyDir(loc.Path) {
		return fmt.Errorf("%w: %s already exists; choose a new path", engine.ErrConflict, loc.Path)
	}
	v, created, err := gitbackend.OpenOrCreate(loc.Path)
	if err != nil {
		return err
	}
	if !created {
		return fmt.Errorf("%w: %s was created by another process meanwhile", engine.ErrConflict, loc.Path)
	}
	out := map[string]any{"vault": v.Path(), "vault_id": v.ID()}
	return a.output(out, func(w io.Writer) {
		fmt.Fprintf(w, "Created vault %s at %s (serve it with any git server that offers atomic pushes)\n", v.ID(), v.Path())
	})
}

func isEmptyDir(p string) bool {
	entries, err := os.ReadDir(p)
	return err == nil && len(entries) == 0
}

func (a *app) runVaultPush(ctx context.Context, cmd *cli.Command) error {
	if err := exactArgs(cmd, 1, "one vault URL to publish to"); err != nil {
		return err
	}
	dst, err := gitbackend.ParseLocation(cmd.Args().First())
	if err != nil {
		return err
	}
	if !dst.IsRemote() {
		if dst, err = gitbackend.ParseLocation("file://" + dst.Path); err != nil {
			return err
		}
	}
	if err := a.needsTransport(dst); err != nil {
		return err
	}
	src, err := a.vaultLocation()
	if err != nil {
		return err
	}
	if src.IsRemote() {
		return usagef("the current vault is already remote (%s); tv vault push publishes a local vault (set TV_VAULT to its path)", src)
	}
	v, err := gitbackend.Open(src.Path)
	if err != nil {
		return err
	}
	n, err := gitbackend.Publish(ctx, v, dst, a.vaultCredentials(), a.ext.Transport)
	if err != nil {
		return err
	}
	out := map[string]any{"from": v.Path(), "to": dst.URL, "vault_id": v.ID(), "refs": n}
	return a.output(out, func(w io.Writer) {
		fmt.Fprintf(w, "Published vault %s (%d refs) to %s\nUse it with: tv vault use %s\n", v.ID(), n, dst.URL, dst.URL)
	})
}

func (a *app) runVaultDoctor(_ context.Context, cmd *cli.Command) error {
	if err := exactArgs(cmd, 0, "no positional arguments"); err != nil {
		return err
	}
	loc, err := a.vaultLocation()
	if err != nil {
		return err
	}
	dir := loc.Path
	if loc.IsRemote() {
		dir = gitbackend.CachePath(cacheDir(a.io.Getenv), loc.URL)
	}
	locks, err := gitbackend.StaleLocks(dir, gitbackend.StaleLockAge)
	if err != nil {
		return err
	}
	var removed []string
	if cmd.Bool("fix") {
		if removed, err = gitbackend.RemoveStaleLocks(dir, gitbackend.StaleLockAge); err != nil {
			return err
		}
	}
	out := map[string]any{"vault": dir, "stale_locks": locks, "removed": removed}
	if locks == nil {
		out["stale_locks"] = []gitbackend.StaleLock{}
	}
	if removed == nil {
		out["removed"] = []string{}
	}
	return a.output(out, func(w io.Writer) {
		if len(locks) == 0 {
			fmt.Fprintf(w, "%s: no stale lock files\n", dir)
			return
		}
		for _, l := range locks {
			fmt.Fprintf(w, "stale lock %s (%s old)\n", l.Path, l.Age.Round(time.Second))
		}
		if cmd.Bool("fix") {
			fmt.Fprintf(w, "removed %d stale lock file(s)\n", len(removed))
		} else {
			fmt.Fprintf(w, "run `tv vault doctor --fix` to remove them\n")
		}
	})
}

// humanBytes renders a byte count with a binary unit.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
