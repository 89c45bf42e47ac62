// Package wiretest drives a stdio MCP server with raw JSON-RPC lines and
// records what it writes back, byte for byte, as a transcript the tests
// compare with golden files (package golden): the wire-level contract of
// the tv MCP servers.
package wiretest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// Step is one input line and what to wait for before the next.
type Step struct {
	// Before, when set, runs before the line is sent.
	Before func()
	// In is the line sent (without its newline).
	In string
	// NoReply: the line is a request that gets no answer now (an
	// answer that comes later is awaited by a later step's Await).
	NoReply bool
	// NullID: the line is a request whose id is refused, so its error
	// answer carries a null id; that answer is awaited.
	NullID bool
	// Await is the JSON id (as written, e.g. `7` or `"x"`) of an earlier
	// request whose answer arrives during this step.
	Await string
	// Notes is the number of notifications (messages without an id)
	// this step sends (they are written by another goroutine than the
	// answers, so they are awaited by count).
	Notes int
}

// Serve runs a server over in and out until in is closed.
type Serve func(ctx context.Context, in io.Reader, out io.Writer) error

// Transcript runs serve, sends each step's line and, after it, a ping
// with a sentinel id; it collects every line written until the answers
// awaited (the step's own request, unless NoReply, and Await), the
// sentinel's and Notes notifications have arrived (a NullID step awaits
// its null-id answer; any other request still unanswered 300 ms after the
// sentinel's answer is taken as one that gets none: mark such steps
// NullID or NoReply, the wait costs every run). The
// transcript lists each input line ("> ")
// and the lines written during its step ("< ", sorted: answers of
// concurrent requests and notifications may interleave either way),
// sentinel answers left out, each passed through normalize.
func Transcript(t *testing.T, serve Serve, steps []Step, normalize func(string) string) string {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		err := serve(ctx, inR, outW)
		outW.Close()
		done <- err
	}()
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var b strings.Builder
	for i, st := range steps {
		if st.Before != nil {
			st.Before()
		}
		sentinel := fmt.Sprintf(`"sync-%d"`, i)
		want := map[string]bool{sentinel: true}
		if id, ok := requestID(st.In); ok && !st.NoReply {
			if st.NullID {
				id = "null"
			}
			want[id] = true
		}
		if st.Await != "" {
			want[canonical(st.Await)] = true
		}
		if _, err := io.WriteString(inW, st.In+"\n"+`{"jsonrpc":"2.0","id":`+sentinel+`,"method":"ping"}`+"\n"); err != nil {
			t.Fatalf("step %d: write: %v", i, err)
		}
		var got []string
		notes := 0
		timeout := time.After(20 * time.Second)
		var grace <-chan time.Time
		for len(want) > 0 || notes < st.Notes {
			if notes < st.Notes || want[sentinel] || want[canonical(st.Await)] || want["null"] {
				grace = nil
			} else if grace == nil {
				// Only the step's own answer is missing: a request that
				// is not answered (a parse error answers with a null id).
				grace = time.After(300 * time.Millisecond)
			}
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("step %d (%s): output closed; got %q", i, st.In, got)
				}
				id := responseID(l)
				delete(want, id)
				if id == "" {
					notes++
				}
				if id != sentinel {
					got = append(got, normalize(l))
				}
			case <-grace:
				clear(want)
			case <-timeout:
				t.Fatalf("step %d (%s): no answer for %v; got %q", i, st.In, want, got)
			}
		}
		slices.Sort(got)
		fmt.Fprintf(&b, "> %s\n", normalize(st.In))
		for _, l := range got {
			fmt.Fprintf(&b, "< %s\n", l)
		}
	}
	inW.Close()
	for l := range lines {
		fmt.Fprintf(&b, "< (at EOF) %s\n", normalize(l))
	}
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	return b.String()
}

// requestID returns the canonical id of a line that is a request (an
// object with a method and a non-null id, no result).
func requestID(line string) (string, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(line), &m) != nil {
		return "", false
	}
	id, ok := m["id"]
	if _, hasMethod := m["method"]; !ok || !hasMethod || string(id) == "null" {
		return "", false
	}
	if _, isResponse := m["result"]; isResponse {
		return "", false
	}
	return canonical(string(id)), true
}

// responseID returns the canonical id of an output line ("" for none).
func responseID(line string) string {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal([]byte(line), &m) != nil || len(m.ID) == 0 {
		return ""
	}
	return canonical(string(m.ID))
}

// canonical re-encodes a JSON id so that 1, 1.0 and 1e0 compare equal.
func canonical(id string) string {
	var v any
	dec := json.NewDecoder(strings.NewReader(id))
	if dec.Decode(&v) != nil {
		return id
	}
	b, _ := json.Marshal(v)
	return string(bytes.TrimSpace(b))
}
