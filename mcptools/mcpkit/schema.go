package mcpkit

// Schema is a JSON Schema document as a map (marshalled with sorted keys,
// so snapshots are stable).
type Schema = map[string]any

// Object returns a strict object schema: the given properties, the
// required ones, and additionalProperties false.
func Object(props Schema, required ...string) Schema {
	s := Schema{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// OpenObject is an object schema that allows further members (for output
// schemas, so results can grow without breaking clients).
func OpenObject(props Schema, required ...string) Schema {
	s := Schema{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// Str is a string property with a description.
func Str(desc string) Schema { return Schema{"type": "string", "description": desc} }

// Int is an integer property with a description.
func Int(desc string) Schema { return Schema{"type": "integer", "description": desc} }

// Bool is a boolean property with a description.
func Bool(desc string) Schema { return Schema{"type": "boolean", "description": desc} }

// Array is an array property of items.
func Array(items Schema, desc string) Schema {
	return Schema{"type": "array", "items": items, "description": desc}
}

// Nullable allows null besides the schema: {"anyOf": [s, {"type":
// "null"}]}, the description kept outside. A type array (["object",
// "null"]) says the same, but the Inspector's --strict check warns about it
// as less portable (clients that map schemas onto a single-type dialect).
func Nullable(s Schema) Schema {
	inner := Schema{}
	for k, v := range s {
		if k != "description" {
			inner[k] = v
		}
	}
	out := Schema{"anyOf": []Schema{inner, {"type": "null"}}}
	if d, ok := s["description"]; ok {
		out["description"] = d
	}
	return out
}

// With returns a copy of s with extra keywords (minimum, default, …).
func With(s Schema, kv ...any) Schema {
	out := Schema{}
	for k, v := range s {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// EnvelopeSchema is the output schema shared by every tool: captured_at
// (Unix seconds), the workspace the result is about, and the tool's data.
func EnvelopeSchema(workspace, data Schema) Schema {
	return OpenObject(Schema{
		"captured_at": Int("when the result was captured, Unix seconds"),
		"workspace":   workspace,
		"data":        data,
	}, "captured_at", "workspace", "data")
}
