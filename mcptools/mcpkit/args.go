package mcpkit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrBadArguments is wrapped by argument decoding and range errors.
var ErrBadArguments = errors.New("invalid arguments")

// DecodeArgs decodes raw into v strictly: a JSON object whose members are
// all fields of v. An unknown member is refused with a message naming it
// (the server validates the input schema before this too; this is the
// second line).
func DecodeArgs(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		msg := err.Error()
		if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
			return fmt.Errorf("%w: unknown argument %s; this tool takes only the arguments in its input schema", ErrBadArguments, f)
		}
		return fmt.Errorf("%w: %s", ErrBadArguments, strings.TrimPrefix(msg, "json: "))
	}
	if dec.More() {
		return fmt.Errorf("%w: trailing data after the arguments object", ErrBadArguments)
	}
	return nil
}
