package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// The floor server (-floor) calibrates the lean client's numbers: a server
// that does no work at all and answers every tools/call with the bytes tv
// answered the same read with (captured first), so its row shows what the
// client and the pipe cost for tv's response on this machine. It answers
// initialize (with the protocol asked for), ping and tools/call; it
// understands the lean client's requests only ("id" before "method").

// serveCanned runs the floor server on stdin/stdout: response is a
// captured tools/call response line.
func serveCanned(response []byte) error {
	var canned struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(response, &canned); err != nil || canned.Result == nil {
		return fmt.Errorf("canned response has no result (%v): %.100s", err, response)
	}
	suffix := append(append([]byte(`,"result":`), canned.Result...), "}\n"...)
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	var out []byte
	for {
		line, err := in.ReadSlice('\n')
		if err != nil {
			return nil // stdin closed
		}
		i := bytes.Index(line, []byte(`"id":`))
		if i < 0 {
			continue // a notification
		}
		j := bytes.IndexByte(line[i:], ',')
		if j < 0 {
			return fmt.Errorf("cannot find the id in %.100s", line)
		}
		id := line[i+5 : i+j]
		out = append(append(out[:0], `{"jsonrpc":"2.0","id":`...), id...)
		switch {
		case bytes.Contains(line, []byte(`"method":"tools/call"`)):
			out = append(out, suffix...)
		case bytes.Contains(line, []byte(`"method":"ping"`)):
			out = append(out, ",\"result\":{}}\n"...)
		case bytes.Contains(line, []byte(`"method":"initialize"`)):
			var req struct {
				Params struct {
					ProtocolVersion string `json:"protocolVersion"`
				} `json:"params"`
			}
			if err := json.Unmarshal(line, &req); err != nil {
				return err
			}
			res, _ := json.Marshal(map[string]any{"protocolVersion": req.Params.ProtocolVersion,
				"capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "floor", "version": "1"}})
			out = append(append(append(out, `,"result":`...), res...), "}\n"...)
		default:
			return fmt.Errorf("floor server: unexpected request %.100s", line)
		}
		if _, err := os.Stdout.Write(out); err != nil {
			return nil
		}
	}
}
