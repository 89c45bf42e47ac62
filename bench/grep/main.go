// Command grep is the benchmark driver for textsearch: it runs one
// textsearch.Search over a directory, prints the matches to stdout (like
// rg -n would) and a summary line to stderr, so compare.sh can time it
// side by side with ripgrep.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/thalix/tv/ignore"
	"github.com/thalix/tv/textsearch"
)

func main() {
	fixed := flag.Bool("F", false, "treat the pattern as a literal string")
	limit := flag.Int("limit", textsearch.MaxLimit, "match limit")
	defaults := flag.Bool("defaults", false, "apply ignore.DefaultPatterns")
	gitignore := flag.Bool("gitignore", true, "honour .gitignore files")
	quiet := flag.Bool("q", false, "do not print matches")
	expect := flag.Int("expect", -1, "fail (exit 1) unless exactly this many matching lines are found, e.g. the sum of `rg -c`")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: grep [flags] PATTERN DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	t0 := time.Now()
	root, err := os.OpenRoot(flag.Arg(1))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	m, err := ignore.NewMatcher(root, ignore.Options{Defaults: *defaults, GitIgnore: *gitignore})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	res, err := textsearch.Search(context.Background(), root, ".", textsearch.Options{
		Pattern: flag.Arg(0), Fixed: *fixed, Limit: *limit, Ignore: m,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	elapsed := time.Since(t0)
	if !*quiet {
		w := bufio.NewWriter(os.Stdout)
		for _, mt := range res.Matches {
			fmt.Fprintf(w, "%s:%d:%s\n", mt.Path, mt.Line, mt.Text)
		}
		w.Flush()
	}
	fmt.Fprintf(os.Stderr, "matches=%d files=%d bytes=%d binary=%d stopped=%q elapsed=%s\n",
		len(res.Matches), res.FilesScanned, res.BytesScanned, res.BinarySkipped, res.Stopped, elapsed)
	if *expect >= 0 && len(res.Matches) != *expect {
		fmt.Fprintf(os.Stderr, "grep: found %d matching lines, expected %d\n", len(res.Matches), *expect)
		os.Exit(1)
	}
}
