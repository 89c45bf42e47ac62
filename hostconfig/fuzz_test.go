package hostconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
)

// canon renders the JSON value at the decoder as compact text that keeps
// member order and number literals: an independent decoding (json.Decoder
// tokens) to compare the splice against.
func canon(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	switch v := tok.(type) {
	case json.Delim:
		var b strings.Builder
		b.WriteRune(rune(v))
		for i := 0; dec.More(); i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			if v == '{' {
				k, err := dec.Token()
				if err != nil {
					return "", err
				}
				b.WriteString(strconv.Quote(k.(string)) + ":")
			}
			s, err := canon(dec)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		}
		end, err := dec.Token()
		if err != nil {
			return "", err
		}
		b.WriteRune(rune(end.(json.Delim)))
		return b.String(), nil
	case string:
		return strconv.Quote(v), nil
	case json.Number:
		return v.String(), nil
	case nil:
		return "null", nil
	default:
		return strconv.FormatBool(v.(bool)), nil
	}
}

type canonMember struct{ key, val string }

// canonTop returns the top-level members of a JSON object document.
func canonTop(data []byte) ([]canonMember, bool) {
	data = data[bomLen(data):]
	if !json.Valid(data) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var ms []canonMember
	for dec.More() {
		k, _ := dec.Token()
		v, err := canon(dec)
		if err != nil {
			return nil, false
		}
		ms = append(ms, canonMember{k.(string), v})
	}
	return ms, true
}

func canonObject(ms []canonMember) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = strconv.Quote(m.key) + ":" + m.val
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func canonOf(t *testing.T, data []byte) string {
	ms, ok := canonTop(data)
	if !ok {
		t.Fatalf("not a JSON object:\n%q", data)
	}
	return canonObject(ms)
}

func fuzzEntry(arg string) Entry {
	return Entry{Name: "thalix-vault", Command: "/usr/local/bin/tv", Args: []string{"mcp", arg}}
}

func FuzzJSONSplice(f *testing.F) {
	for _, hc := range hostCases {
		if hc.host != Codex {
			f.Add([]byte(hc.fixture), true, "serve")
			f.Add([]byte(hc.installed), false, "--workspace")
		}
	}
	for _, s := range []string{
		"", "{}", " { } ", `{"mcpServers":{}}`, `{"a":1,"mcpServers":{ }}`, "{\r\n\t\"x\": [1e999]\r\n}",
		`{"mcpServers":{"thalix-vault":{"command":"/usr/local/bin/tv","args":["mcp","x"]}}}`,
		`{"mcp\u0053ervers":{"a":{}},"b":"\u2028"}`, "\xEF\xBB\xBF{\"a\":\"\xff\"}", `[1]`, `{"a":}`,
	} {
		f.Add([]byte(s), false, "x")
	}
	f.Fuzz(func(t *testing.T, in []byte, typed bool, arg string) {
		e := fuzzEntry(arg)
		if validateEntry(e, "linux", true) != nil {
			return
		}
		h := Cursor
		if typed {
			h = ClaudeCode
		}
		top, isObject := canonTop(in)
		out, ch, err := installBytes(h, in, e, false)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrEntryExists) {
				t.Fatalf("install: %v", err)
			}
			if isObject && errors.Is(err, ErrMalformed) && !strings.Contains(err.Error(), "duplicate") && !strings.Contains(err.Error(), "is not a JSON object") {
				t.Fatalf("valid object refused: %v", err)
			}
			return
		}
		if ch == Unchanged {
			if !bytes.Equal(out, in) {
				t.Fatalf("unchanged but different bytes")
			}
			return
		}
		if ch != Created {
			t.Fatalf("change %q", ch)
		}
		if !blankJSON(in) && !isObject {
			t.Fatalf("installed into a non-object:\n%q", in)
		}

		// Decoding yields the same members plus tv's, in the same order.
		entryCanon := canonOf(t, mustMarshal(t, newJSONServer(e, typed)))
		want := append([]canonMember(nil), top...)
		serversAt, serversLast := -1, false
		for i, m := range want {
			if m.key == mcpServersKey {
				serversAt, serversLast = i, i == len(want)-1
				sep := ","
				if m.val == "{}" {
					sep = ""
				}
				want[i].val = strings.TrimSuffix(m.val, "}") + sep + strconv.Quote(e.Name) + ":" + entryCanon + "}"
			}
		}
		if serversAt < 0 {
			want = append(want, canonMember{mcpServersKey, "{" + strconv.Quote(e.Name) + ":" + entryCanon + "}"})
		}
		if got := canonOf(t, out); got != canonObject(want) {
			t.Fatalf("install of\n%q\ngave\n%q\ndecoded %s\nwant    %s", in, out, got, canonObject(want))
		}
		if again, ch, err := installBytes(h, out, e, false); err != nil || ch != Unchanged || !bytes.Equal(again, out) {
			t.Fatalf("second install: %q %v", ch, err)
		}

		// Uninstall restores the bytes.
		back, ch, empty, err := jsonUninstall(out, e.Name)
		if err != nil || ch != Removed {
			t.Fatalf("uninstall: %q %v", ch, err)
		}
		var serversRaw string
		if doc, err := parseJSONDoc(in, e.Name); err == nil && doc.servers != nil {
			serversRaw = string(in[doc.servers.start:doc.servers.end])
		}
		restores := len(top) > 0 && (serversAt < 0 || serversRaw != "{}" && top[serversAt].val != "{}" || serversRaw == "{}" && !serversLast)
		switch {
		case restores:
			if !bytes.Equal(back, in) {
				t.Fatalf("uninstall did not restore\n%q\ngot\n%q", in, back)
			}
		case len(top) == 0 || len(top) == 1 && serversAt == 0 && top[0].val == "{}":
			if !empty || canonOf(t, back) != "{}" {
				t.Fatalf("uninstall of the only content = %q, empty %v", back, empty)
			}
		case serversLast && top[serversAt].val == "{}":
			if canonOf(t, back) != canonObject(top[:serversAt]) {
				t.Fatalf("uninstall = %q", back)
			}
		default:
			if canonOf(t, back) != canonObject(top) {
				t.Fatalf("uninstall = %q, want the members of %q", back, in)
			}
		}
	})
}

func mustMarshal(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func FuzzTOMLSplice(f *testing.F) {
	for _, hc := range hostCases {
		if hc.host == Codex {
			f.Add([]byte(hc.fixture), "serve")
			f.Add([]byte(hc.different), "serve")
		}
	}
	for _, s := range []string{"", "a = 1", "a = 1\r\n", "[x]\nq = '''\n[mcp_servers.thalix-vault]'''\n", "b = [\n[1],\n]\n"} {
		f.Add([]byte(s), "x")
	}
	f.Fuzz(func(t *testing.T, in []byte, arg string) {
		e := fuzzEntry(arg)
		if validateEntry(e, "linux", true) != nil {
			return
		}
		out, ch, err := installBytes(Codex, in, e, false)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrEntryExists) {
				t.Fatalf("install: %v", err)
			}
			return
		}
		if ch == Unchanged {
			return
		}
		if ch != Created || !bytes.HasPrefix(out, in) {
			t.Fatalf("install changed existing text: %q\n%q", ch, out)
		}
		if again, ch, err := installBytes(Codex, out, e, false); err != nil || ch != Unchanged || !bytes.Equal(again, out) {
			t.Fatalf("second install: %q %v", ch, err)
		}
		back, ch, _, err := tomlUninstall(out, e.Name)
		if err != nil || ch != Removed {
			t.Fatalf("uninstall: %q %v", ch, err)
		}
		want := in
		if len(in) > 0 && !bytes.HasSuffix(in, []byte("\n")) {
			want = append(append([]byte(nil), in...), tomlNewline(in)...)
		}
		if !bytes.Equal(back, want) {
			t.Fatalf("uninstall of\n%q\ngave\n%q\nwant\n%q", out, back, want)
		}
	})
}
