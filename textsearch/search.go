package textsearch

import (
	"context"
	"errors"
	"os"

	"github.com/thalix/tv/ignore"
)

// ErrBadPattern is wrapped by errors about an invalid or oversized pattern.
var ErrBadPattern = errors.New("bad search pattern")

// Options configures one Search.
type Options struct {
	Pattern        string
	Fixed          bool
	Context        int
	Limit          int
	Ignore         *ignore.Matcher
	MaxFiles       int
	MaxBytes       int64
	MaxOutputBytes int
}

// Line is one line of context.
type Line struct {
	Number int
	Text   string
}

// Match is one matching line.
type Match struct {
	Path   string
	Line   int
	Column int
	Text   string
	Before []Line
	After  []Line
}

// Result is the outcome of a Search.
type Result struct {
	Matches       []Match
	FilesScanned  int
	BytesScanned  int64
	BinarySkipped int
	Stopped       string
}

// Search walks start under root and returns matches. Work in progress.
func Search(ctx context.Context, root *os.Root, start string, opts Options) (*Result, error) {
	return &Result{}, nil
}
