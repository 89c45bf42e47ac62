package engine

import (
	"crypto/rand"
	"fmt"
	"strings"
)

// Kind says whether a ref is a workspace or a template.
type Kind string

// The two kinds of vault refs.
const (
	KindWorkspace Kind = "workspace"
	KindTemplate  Kind = "template"
)

// Ref name prefixes of the vault format (DESIGN.md).
const (
	WorkspaceRefPrefix = "refs/tv/workspaces/"
	TemplateRefPrefix  = "refs/tv/templates/"
)

// Commit trailers that make every ref self-describing.
const (
	trailerKind     = "Tv-Kind"
	trailerID       = "Tv-Id"
	trailerName     = "Tv-Name"
	trailerTemplate = "Tv-Template"
)

const idAlphabet = "abcdefghijklmnopqrstuvwxyz234567"

// newID returns a fresh random id with the kind's prefix: ws_… or tpl_…,
// 100 random bits, never reused in practice.
func newID(k Kind) string {
	var b [idSuffixLen]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	var sb strings.Builder
	sb.WriteString(idPrefix(k))
	for _, c := range b {
		sb.WriteByte(idAlphabet[c&31])
	}
	return sb.String()
}

func idPrefix(k Kind) string {
	if k == KindTemplate {
		return "tpl_"
	}
	return "ws_"
}

func refPrefix(k Kind) string {
	if k == KindTemplate {
		return TemplateRefPrefix
	}
	return WorkspaceRefPrefix
}

// idSuffixLen is the length of an id after its ws_ or tpl_ prefix.
const idSuffixLen = 20

// isID reports whether s has the shape of a workspace or template id:
// ws_ or tpl_, then idSuffixLen characters of idAlphabet.
func isID(s string) bool {
	rest, ok := strings.CutPrefix(s, "ws_")
	if !ok {
		rest, ok = strings.CutPrefix(s, "tpl_")
	}
	if !ok || len(rest) != idSuffixLen {
		return false
	}
	for i := range len(rest) {
		if c := rest[i]; !('a' <= c && c <= 'z' || '2' <= c && c <= '7') {
			return false
		}
	}
	return true
}

// isNameShaped reports whether name is letters, digits, '.', '_' and '-',
// starting with a letter or digit.
func isNameShaped(name string) bool {
	for i := range len(name) {
		c := name[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return name != ""
}

// ValidateName checks a workspace or template name: 1..MaxNameBytes bytes
// of letters, digits, '.', '_' or '-', starting with a letter or digit, and
// not shaped like an id.
func ValidateName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: a name is required (--name)", ErrUsage)
	case len(name) > MaxNameBytes:
		return fmt.Errorf("%w: name %q is over %d bytes", ErrUsage, name, MaxNameBytes)
	case !isNameShaped(name):
		return fmt.Errorf("%w: name %q: use letters, digits, '.', '_' and '-', starting with a letter or digit", ErrUsage, name)
	case isID(name):
		return fmt.Errorf("%w: name %q looks like an id; pick another", ErrUsage, name)
	}
	return nil
}

// trailers holds the tv trailers of a commit message.
type trailers map[string]string

// parseTrailers reads "Key: value" lines of the message's last paragraph.
func parseTrailers(msg string) trailers {
	t := trailers{}
	paras := strings.Split(strings.TrimRight(msg, "\n"), "\n\n")
	for _, line := range strings.Split(paras[len(paras)-1], "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if ok && strings.HasPrefix(k, "Tv-") {
			t[k] = v
		}
	}
	return t
}

// commitMessage formats a reason plus trailers. The reason's first line is
// the commit subject.
func commitMessage(reason string, kv ...string) string {
	var sb strings.Builder
	sb.WriteString(strings.TrimSpace(reason))
	sb.WriteString("\n\n")
	for i := 0; i+1 < len(kv); i += 2 {
		fmt.Fprintf(&sb, "%s: %s\n", kv[i], kv[i+1])
	}
	return sb.String()
}

// subject returns the first line of a commit message.
func subject(msg string) string {
	s, _, _ := strings.Cut(msg, "\n")
	return s
}

// ValidateReason checks a commit reason: non-blank, at most MaxReasonBytes,
// no NUL and no line that looks like a tv trailer.
func ValidateReason(reason string) error {
	r := strings.TrimSpace(reason)
	switch {
	case r == "":
		return fmt.Errorf("%w: --reason must say why (it becomes the version's message)", ErrUsage)
	case len(r) > MaxReasonBytes:
		return fmt.Errorf("%w: --reason is over %d bytes", ErrUsage, MaxReasonBytes)
	case strings.ContainsRune(r, 0):
		return fmt.Errorf("%w: --reason contains a NUL byte", ErrUsage)
	}
	for _, line := range strings.Split(r, "\n") {
		if strings.HasPrefix(line, "Tv-") && strings.Contains(line, ": ") {
			return fmt.Errorf("%w: --reason line %q looks like a tv trailer", ErrUsage, line)
		}
	}
	return nil
}
