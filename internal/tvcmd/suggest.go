package tvcmd

import (
	"strings"

	"github.com/urfave/cli/v3"
)

// suggestion returns the candidate closest to word, or "" when none is
// close: a prefix of it (or it of a candidate), or within an edit distance
// of about a third of its length (transpositions count as one edit).
func suggestion(word string, candidates []string) string {
	best, bestDist := "", -1
	limit := max(2, len(word)/3)
	for _, c := range candidates {
		d := editDistance(strings.ToLower(word), strings.ToLower(c))
		if len(word) >= 3 && (strings.HasPrefix(c, word) || strings.HasPrefix(word, c)) && len(c) >= 3 {
			d = min(d, 1)
		}
		if d <= limit && (bestDist < 0 || d < bestDist) {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b
// (insertions, deletions, substitutions, adjacent transpositions).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// commandNames lists the names and aliases of cmd's visible subcommands.
func commandNames(cmd *cli.Command) []string {
	var names []string
	for _, c := range cmd.Commands {
		if !c.Hidden {
			names = append(names, c.Name)
			names = append(names, c.Aliases...)
		}
	}
	return names
}

// flagNames lists the long names of the flags cmd accepts.
func flagNames(cmd *cli.Command) []string {
	var names []string
	for _, f := range cmdFlags(cmd) {
		for _, n := range f.Names() {
			if len(n) > 1 {
				names = append(names, n)
			}
		}
	}
	return append(names, "help")
}

// unknownCommandError names the word that is not a subcommand of cmd, with
// the closest subcommand when one is close.
func unknownCommandError(cmd *cli.Command, word string) error {
	msg := "unknown command \"" + word + "\" for \"" + fullName(cmd) + "\""
	if s := suggestion(word, commandNames(cmd)); s != "" {
		msg += "; did you mean \"" + s + "\"?"
	}
	return usagef("%s", msg)
}
