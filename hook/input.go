package hook

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/thalix/tv/engine"
)

// Command is one ref update of a push, as git's receive-pack hands it to
// the pre-receive hook: "<old> <new> <ref>". A zero Old creates the ref;
// a zero New deletes it.
type Command struct {
	Old, New engine.Hash
	Ref      string
}

// ParseCommands reads the hook's standard input: one command per line, at
// most MaxCommands lines of at most MaxLineBytes. Anything else is
// refused with an error naming the line and what was wrong; nothing
// partial is returned.
func ParseCommands(r io.Reader) ([]Command, error) {
	br := bufio.NewReaderSize(r, MaxLineBytes+1)
	var out []Command
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("line %d is over %d bytes", n, MaxLineBytes)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read line %d: %v", n, err)
		}
		if len(line) == 0 && errors.Is(err, io.EOF) {
			return out, nil
		}
		if len(out) == MaxCommands {
			return nil, fmt.Errorf("more than %d ref updates in one push", MaxCommands)
		}
		c, perr := parseCommand(bytes.TrimSuffix(line, []byte("\n")))
		if perr != nil {
			return nil, fmt.Errorf("line %d: %v", n, perr)
		}
		out = append(out, c)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
	}
}

func parseCommand(line []byte) (Command, error) {
	fields := strings.Split(string(line), " ")
	if len(fields) != 3 {
		return Command{}, fmt.Errorf("want \"<old-id> <new-id> <ref>\", got %d fields", len(fields))
	}
	old, err := engine.ParseHash(fields[0])
	if err != nil {
		return Command{}, fmt.Errorf("old id: %v", strings.TrimPrefix(err.Error(), "usage: "))
	}
	nu, err := engine.ParseHash(fields[1])
	if err != nil {
		return Command{}, fmt.Errorf("new id: %v", strings.TrimPrefix(err.Error(), "usage: "))
	}
	ref := fields[2]
	if ref == "" || !strings.HasPrefix(ref, "refs/") {
		return Command{}, fmt.Errorf("ref %q is not a full ref name", ref)
	}
	for _, c := range ref {
		if c < 0x20 || c == 0x7f {
			return Command{}, fmt.Errorf("ref %q contains a control character", ref)
		}
	}
	if old.IsZero() && nu.IsZero() {
		return Command{}, fmt.Errorf("ref %s: both ids are zero", ref)
	}
	return Command{Old: old, New: nu, Ref: ref}, nil
}
