package tvcmd

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/urfave/cli/v3"
)

// versionInfo is what `tv version` reports (its --json document).
type versionInfo struct {
	// Version is the module version, "(devel)" for a build from a checkout.
	Version string `json:"version"`
	// Commit is the VCS revision the binary was built from, when known;
	// Modified says the work tree had uncommitted changes.
	Commit     string `json:"commit,omitempty"`
	CommitTime string `json:"commit_time,omitempty"`
	Modified   bool   `json:"modified,omitempty"`
	GoVersion  string `json:"go_version"`
	Platform   string `json:"platform"`
}

// buildVersion reads the version from the binary's build information.
func buildVersion() versionInfo {
	v := versionInfo{Version: Version(), GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.CommitTime = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String is the one-line form `tv --version` prints.
func (v versionInfo) String() string {
	s := "tv version " + v.Version
	if v.Commit != "" {
		c := v.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if v.Modified {
			c += "-dirty"
		}
		s += " (commit " + c + ")"
	}
	return s + " " + v.GoVersion + " " + v.Platform
}

func (a *app) versionCommand() *cli.Command {
	return &cli.Command{
		Name:      "version",
		Usage:     "print tv's version, commit, Go version and platform",
		UsageText: "tv version [--json]",
		Action: a.action(func(_ context.Context, cmd *cli.Command) error {
			if err := exactArgs(cmd, 0, ""); err != nil {
				return err
			}
			return a.printVersion()
		}),
	}
}

func (a *app) printVersion() error {
	v := buildVersion()
	return a.output(v, func(w io.Writer) { fmt.Fprintln(w, v) })
}
