package jsonschema

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func mustCompile(t *testing.T, schema string, opts *Options) *Schema {
	t.Helper()
	doc, err := Unmarshal([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Compile(doc, opts)
	if err != nil {
		t.Fatalf("compile %s: %v", schema, err)
	}
	return s
}

func validate(t *testing.T, s *Schema, value string) error {
	t.Helper()
	v, err := Unmarshal([]byte(value))
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(v)
}

// TestMessages: every failure names the offending member (its instance
// location) and what is wrong, in the wording tv's tests and users see.
func TestMessages(t *testing.T) {
	cases := []struct{ schema, value, want string }{
		{`{"type":"object","properties":{"a":{"type":"string"}}}`, `{"a":1}`, "at '/a': got number, want string"},
		{`{"type":"object","properties":{"a":{"type":"integer"}}}`, `{"a":3.5}`, "at '/a': got number, want integer"},
		{`{"type":"object","properties":{"a":{"type":["string","null"]}}}`, `{"a":true}`, "at '/a': got boolean, want null or string"},
		{`{"type":"object","required":["path"]}`, `{}`, "missing property 'path'"},
		{`{"type":"object","required":["b","a"]}`, `{}`, "missing properties 'b', 'a'"},
		{`{"type":"object","additionalProperties":false}`, `{"y":1,"x":2}`, "additional properties 'x', 'y' not allowed"},
		{`{"properties":{"edits":{"items":{"required":["find"]}}}}`, `{"edits":[{}]}`, "at '/edits/0': missing property 'find'"},
		{`{"properties":{"d":{"maximum":8}}}`, `{"d":9}`, "at '/d': maximum: got 9, want 8"},
		{`{"properties":{"d":{"minimum":0.5}}}`, `{"d":-1234.25}`, "at '/d': minimum: got -1234.25, want 0.5"},
		{`{"properties":{"d":{"maximum":1048576}}}`, `{"d":12345678}`, "at '/d': maximum: got 12345678, want 1048576"},
		{`{"properties":{"d":{"exclusiveMaximum":3}}}`, `{"d":3}`, "at '/d': exclusiveMaximum: got 3, want 3"},
		{`{"properties":{"d":{"exclusiveMinimum":3}}}`, `{"d":3}`, "at '/d': exclusiveMinimum: got 3, want 3"},
		{`{"properties":{"d":{"multipleOf":0.01}}}`, `{"d":0.123}`, "at '/d': multipleOf: got 0.123, want 0.01"},
		{`{"properties":{"d":{"maximum":10}}}`, `{"d":1e400}`, "at '/d': maximum: got 1e400, want 10"},
		{`{"properties":{"s":{"minLength":2}}}`, `{"s":"é"}`, "at '/s': minLength: got 1, want 2"},
		{`{"properties":{"s":{"maxLength":3,"pattern":"^a+$"}}}`, `{"s":"bbbb"}`, "at '/s': maxLength: got 4, want 3; at '/s': 'bbbb' does not match pattern '^a+$'"},
		{`{"properties":{"o":{"enum":["x","y",1,null]}}}`, `{"o":"z"}`, "at '/o': value must be one of 'x', 'y', 1, null"},
		{`{"properties":{"o":{"enum":["x"]}}}`, `{"o":"z"}`, "at '/o': value must be 'x'"},
		{`{"properties":{"o":{"enum":[[1]]}}}`, `{"o":"z"}`, "at '/o': 'enum' failed"},
		{`{"properties":{"o":{"const":"q"}}}`, `{"o":"r"}`, "at '/o': value must be 'q'"},
		{`{"properties":{"o":{"const":{"a":1}}}}`, `{"o":"r"}`, "at '/o': 'const' failed"},
		{`{"properties":{"o":{"minProperties":2,"maxProperties":0}}}`, `{"o":{"a":1}}`, "at '/o': minProperties: got 1, want 2; at '/o': maxProperties: got 1, want 0"},
		{`{"properties":{"a":{"minItems":2,"maxItems":0,"uniqueItems":true}}}`, `{"a":[1,1.0]}`, "at '/a': maxItems: got 2, want 0; at '/a': items at 0 and 1 are equal"},
		{`{"properties":{"a":{"minItems":3}}}`, `{"a":[1,2]}`, "at '/a': minItems: got 2, want 3"},
		{`{"properties":{"a":{"prefixItems":[true],"items":false}}}`, `{"a":[1,2,3]}`, "at '/a/1': false schema; at '/a/2': false schema"},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"items":[true],"additionalItems":false}}}`, `{"a":[1,2,3]}`, "at '/a': last 2 additionalItem(s) not allowed"},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"items":[true],"additionalItems":{"type":"string"}}}}`, `{"a":[1,"x",3]}`, "at '/a/2': got number, want string"},
		{`{"properties":{"a":{"contains":{"type":"string"}}}}`, `{"a":[1,2]}`, "at '/a': no items match contains schema"},
		{`{"properties":{"a":{"contains":{"type":"string"},"minContains":2}}}`, `{"a":["x",1]}`, "at '/a': min 2 items required to match contains schema, but matched 1 items at 0"},
		{`{"properties":{"a":{"contains":{"type":"string"},"minContains":2}}}`, `{"a":[1]}`, "at '/a': min 2 items required to match contains schema, but none matched"},
		{`{"properties":{"a":{"contains":{"type":"string"},"maxContains":1}}}`, `{"a":["x","y"]}`, "at '/a': max 1 items required to match contains schema, but matched 2 items at 0 1"},
		{`{"properties":{"o":{"propertyNames":{"pattern":"^x"}}}}`, `{"o":{"xa":1,"yb":2}}`, "at '/o': invalid propertyName 'yb': 'yb' does not match pattern '^x'"},
		{`{"properties":{"o":{"dependentRequired":{"p":["q","r"]}}}}`, `{"o":{"p":1}}`, "at '/o': properties 'q', 'r' required, if 'p' exists"},
		{`{"properties":{"o":{"not":{"type":"string"}}}}`, `{"o":"s"}`, "at '/o': 'not' failed"},
		{`{"properties":{"o":{"oneOf":[{"type":"string"},{"minLength":1}]}}}`, `{"o":"bb"}`, "at '/o': 'oneOf' failed, subschemas 0, 1 matched"},
		{`{"properties":{"o":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`, `{"o":1.5}`, "at '/o': got number, want string; at '/o': got number, want integer"},
		{`{"properties":{"o":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`, `{"o":true}`, "at '/o': got boolean, want string; at '/o': got boolean, want integer"},
		{`{"properties":{"o":{"allOf":[{"type":"string"},{"type":"integer"}]}}}`, `{"o":"x"}`, "at '/o': got string, want integer"},
		{`{"properties":{"o":{"$ref":"#/$defs/s"}},"$defs":{"s":{"type":"string"}}}`, `{"o":1}`, "at '/o': got number, want string"},
		{`{"properties":{"o":false}}`, `{"o":1}`, "at '/o': false schema"},
		{`{"if":{"required":["a"]},"then":{"required":["b"]},"else":{"required":["c"]}}`, `{"a":1}`, "missing property 'b'"},
		{`{"if":{"required":["a"]},"then":{"required":["b"]},"else":{"required":["c"]}}`, `{}`, "missing property 'c'"},
		{`{"unevaluatedProperties":false,"allOf":[{"properties":{"a":true}}]}`, `{"a":1,"b":2}`, "at '/b': false schema"},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"e":{"format":"email"}}}`, `{"e":"x"}`, "at '/e': 'x' is not valid email: missing @"},
		{`{"properties":{"a":{"a b":1}}}`, `{"a":1}`, ""},
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["b"],"additionalProperties":false}`, `{"a":1,"c":2}`,
			"missing property 'b'; at '/a': got number, want string; additional properties 'c' not allowed"},
		{`{"properties":{"a\nb":{"type":"string"}}}`, `{"a\nb":1}`, "at '/a\nb': got number, want string"},
	}
	for _, c := range cases {
		s := mustCompile(t, c.schema, nil)
		err := validate(t, s, c.value)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s with %s:\n got %q\nwant %q", c.schema, c.value, got, c.want)
		}
	}
}

// TestFormatAnnotates: from 2019-09 on "format" does not assert; before,
// it does.
func TestFormatAnnotates(t *testing.T) {
	for _, c := range []struct {
		schema string
		valid  bool
	}{
		{`{"format":"email"}`, true},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema","format":"email"}`, true},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","format":"email"}`, false},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","format":"email"}`, false},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","format":"no-such-format"}`, true},
	} {
		if err := validate(t, mustCompile(t, c.schema, nil), `"x"`); (err == nil) != c.valid {
			t.Errorf("%s: %v", c.schema, err)
		}
	}
	if err := validate(t, mustCompile(t, `{"format":"email"}`, &Options{AssertFormat: true}), `"x"`); err == nil {
		t.Error("AssertFormat: an invalid email passed")
	}
}

// TestInvalidSchemas: a schema that breaks its draft's metaschema is an
// *InvalidSchemaError naming the offending keyword; one that cannot be
// compiled is a *CompileError at the keyword.
func TestInvalidSchemas(t *testing.T) {
	refuse := func(u string) (any, error) { return nil, fmt.Errorf("external reference %s is not loaded", u) }
	cases := []struct {
		schema  string
		invalid bool // *InvalidSchemaError, else *CompileError
		want    string
	}{
		{`{"type":"object","properties":{"n":{"type":"integr"}}}`, true,
			"at '/properties/n/type': value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'; at '/properties/n/type': got string, want array"},
		{`{"properties":{"n":{"minimum":"x"}}}`, true, "at '/properties/n/minimum': got string, want number"},
		{`{"minProperties":-1}`, true, "at '/minProperties': minimum: got -1, want 0"},
		{`{"properties":{"n":{"pattern":"("}}}`, true, "at '/properties/n/pattern': '(' is not valid regex: error parsing regexp: missing closing ): `(`"},
		{`{"patternProperties":{"(":{}}}`, true, "at '/patternProperties': invalid propertyName '(': '(' is not valid regex"},
		{`{"$anchor":"1bad"}`, true, "at '/$anchor': '1bad' does not match pattern"},
		{`{"$id":"http://x.com/a#frag"}`, true, "at '/$id': 'http://x.com/a#frag' does not match pattern '^[^#]*#?$'"},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"items":[{"type":"strin"}]}}}`, true, "at '/properties/a/items/0/type'"},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","properties":{"a":{"exclusiveMinimum":3}}}`, true, "at '/properties/a/exclusiveMinimum': got number, want boolean"},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema","properties":{"a":{"minLength":"x"}}}`, true, "at '/properties/a/minLength'"},
		{`{"$schema":"http://json-schema.org/draft-06/schema#","properties":{"a":{"exclusiveMinimum":true}}}`, true, "at '/properties/a/exclusiveMinimum': got boolean, want number"},
		// An embedded resource follows its own draft.
		{`{"$defs":{"x":{"$id":"http://o/x.json","$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"strin"}]}}}`, true, "at '/$defs/x/items/0/type'"},
		// A $ref to a place no keyword marks as a schema is checked too.
		{`{"dummy":{"type":1},"$ref":"#/dummy"}`, true, "at '/dummy/type'"},
		{`{"properties":{"n":{"$ref":"#/$defs/none"}}}`, false, "at '/properties/n/$ref': '#/$defs/none': no such location"},
		{`{"properties":{"n":{"$ref":"#nope"}}}`, false, `at '/properties/n/$ref': '#nope': anchor "nope" not found`},
		{`{"properties":{"n":{"$ref":"file:///etc/passwd"}}}`, false, `at '/properties/n/$ref': loading "file:///etc/passwd": external reference file:///etc/passwd is not loaded`},
		{`{"$schema":"http://example.com/meta","type":"object"}`, false, `at '/$schema': loading "http://example.com/meta": external reference`},
		{`{"$defs":{"x":{"$anchor":"a"},"y":{"$anchor":"a"}}}`, false, `anchor "a" is also defined at`},
		{`{"$defs":{"x":{"$id":"http://a/x"},"y":{"$id":"http://a/x"}}}`, false, `$id "http://a/x" is also the id of`},
	}
	for _, c := range cases {
		doc, err := Unmarshal([]byte(c.schema))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Compile(doc, &Options{Load: refuse})
		var ie *InvalidSchemaError
		var ce *CompileError
		switch {
		case err == nil:
			t.Errorf("%s compiled", c.schema)
		case c.invalid && !errors.As(err, &ie), !c.invalid && !errors.As(err, &ce):
			t.Errorf("%s: %T %v", c.schema, err, err)
		case !strings.Contains(err.Error(), c.want):
			t.Errorf("%s:\n got %q\nwant %q", c.schema, err, c.want)
		}
	}
}

// TestValidSchemas: schemas santhosh-tekuri/jsonschema accepted still
// compile.
func TestValidSchemas(t *testing.T) {
	for _, schema := range []string{
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/s"}},"$defs":{"s":{"type":"string"}}}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","additionalProperties":false}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema#","type":"object"}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema#foo","type":"object"}`,
		`{"$schema":"http://json-schema.org/schema#","type":"object"}`,
		`{"$ref":"#/$defs/My Type","$defs":{"My Type":{"type":"string"}}}`,
		`{"$id":"not a uri","type":"object"}`,
		`{"properties":{"a":{"$ref":"https://json-schema.org/draft/2020-12/schema"}}}`,
		`{"$defs":{"x":{"$id":"http://o/x.json","$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}],"definitions":{"d":{"type":"integer"}}}},"properties":{"a":{"$ref":"http://o/x.json#/definitions/d"}}}`,
		`true`,
		`{}`,
	} {
		mustCompile(t, schema, nil)
	}
}

// TestMetaschemaRef: a schema may $ref a draft's metaschema (served from
// the embedded copy) to accept schemas.
func TestMetaschemaRef(t *testing.T) {
	s := mustCompile(t, `{"properties":{"a":{"$ref":"https://json-schema.org/draft/2020-12/schema"},"b":{"$ref":"http://json-schema.org/draft-07/schema#"}}}`, nil)
	if err := validate(t, s, `{"a":{"type":"string"},"b":{"type":"string"}}`); err != nil {
		t.Error(err)
	}
	err := validate(t, s, `{"a":{"type":"integr"},"b":{"minimum":"x"}}`)
	if err == nil || !strings.Contains(err.Error(), "at '/a/type'") || !strings.Contains(err.Error(), "at '/b/minimum': got string, want number") {
		t.Errorf("got %v", err)
	}
}

// TestLoad: Options.Load supplies documents a $ref names.
func TestLoad(t *testing.T) {
	loaded := []string{}
	s := mustCompile(t, `{"properties":{"a":{"$ref":"http://x/defs.json#/$defs/s"}}}`, &Options{Load: func(u string) (any, error) {
		loaded = append(loaded, u)
		return Unmarshal([]byte(`{"$defs":{"s":{"type":"string"}}}`))
	}})
	if err := validate(t, s, `{"a":1}`); err == nil || err.Error() != "at '/a': got number, want string" {
		t.Errorf("got %v", err)
	}
	if len(loaded) != 1 || loaded[0] != "http://x/defs.json" {
		t.Errorf("loaded %v", loaded)
	}
}

// TestRecursiveRef: draft 2019-09 $recursiveRef extends a recursive schema
// (the suite files tv can read have no 2019-09 directory).
func TestRecursiveRef(t *testing.T) {
	var loads int
	load := func(u string) (any, error) {
		loads++
		if u != "http://x/tree.json" {
			return nil, fmt.Errorf("no %s", u)
		}
		return Unmarshal([]byte(`{"$schema":"https://json-schema.org/draft/2019-09/schema","$id":"http://x/tree.json","$recursiveAnchor":true,
			"type":"object","properties":{"data":true,"children":{"type":"array","items":{"$recursiveRef":"#"}}}}`))
	}
	strict := mustCompile(t, `{"$schema":"https://json-schema.org/draft/2019-09/schema","$id":"http://x/strict.json","$recursiveAnchor":true,
		"$ref":"tree.json","unevaluatedProperties":false}`, &Options{Load: load})
	if err := validate(t, strict, `{"children":[{"data":1}]}`); err != nil {
		t.Errorf("valid tree refused: %v", err)
	}
	err := validate(t, strict, `{"children":[{"daat":1}]}`)
	if err == nil || err.Error() != "at '/children/0/daat': false schema" {
		t.Errorf("misspelled member in a child: %v", err)
	}
	// 2019-09 schemas are checked against their metaschema (which uses
	// $recursiveRef itself).
	doc, _ := Unmarshal([]byte(`{"$schema":"https://json-schema.org/draft/2019-09/schema","properties":{"a":{"properties":{"b":{"type":"integr"}}}}}`))
	if _, err := Compile(doc, nil); err == nil || !strings.Contains(err.Error(), "at '/properties/a/properties/b/type'") {
		t.Errorf("got %v", err)
	}
}

// TestCycle: a schema that applies itself to the same value forever is an
// error, not a stack overflow.
func TestCycle(t *testing.T) {
	s := mustCompile(t, `{"properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}}`, nil)
	if err := validate(t, s, `{"a":1}`); err == nil || !strings.Contains(err.Error(), "reference cycle") {
		t.Errorf("got %v", err)
	}
	// Recursion that descends into the value is fine.
	s = mustCompile(t, `{"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`, nil)
	if err := validate(t, s, `{"next":{"next":{"next":{}}}}`); err != nil {
		t.Error(err)
	}
}

// TestValues: Validate takes Go values as encoding/json decodes them too,
// and numbers compare exactly.
func TestValues(t *testing.T) {
	s := mustCompile(t, `{"properties":{"n":{"type":"integer","maximum":9007199254740993}}}`, nil)
	for _, c := range []struct {
		v     any
		valid bool
	}{
		{map[string]any{"n": 3.0}, true},
		{map[string]any{"n": 3.5}, false},
		{map[string]any{"n": 7}, true},
	} {
		if err := s.Validate(c.v); (err == nil) != c.valid {
			t.Errorf("%v: %v", c.v, err)
		}
	}
	if err := validate(t, s, `{"n":9007199254740994}`); err == nil {
		t.Error("2^53+2 passed a maximum of 2^53+1")
	}
	if err := validate(t, s, `{"n":9007199254740993}`); err != nil {
		t.Error(err)
	}
	if _, err := Unmarshal([]byte(`{} x`)); err == nil {
		t.Error("trailing data accepted")
	}
}

// TestConcurrent: compiling (the metaschemas on first use included) and
// validating from many goroutines is safe (run with -race).
func TestConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			schemas := []string{
				`{"type":"object","properties":{"a":{"type":"string"}}}`,
				`{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"$ref":"https://json-schema.org/draft/2020-12/schema"}}}`,
				`{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object"}`,
				`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`,
			}
			doc, _ := Unmarshal([]byte(schemas[i%len(schemas)]))
			s, err := Compile(doc, nil)
			if err != nil {
				t.Error(err)
				return
			}
			v, _ := Unmarshal([]byte(`{"a":{"type":"string"}}`))
			_ = s.Validate(v)
		}()
	}
	wg.Wait()
}

// TestFormats: each asserted format accepts and refuses what its
// specification says.
func TestFormats(t *testing.T) {
	cases := map[string]struct{ good, bad []string }{
		"date-time":             {[]string{"2020-02-29T23:59:60Z", "1990-12-31T15:59:60-08:00", "2020-01-01t00:00:00.5+01:00"}, []string{"2021-02-29T00:00:00Z", "2020-01-01T00:00:00", "2020-01-01 00:00:00Z", "2020-01-01T12:00:60Z"}},
		"date":                  {[]string{"2000-02-29"}, []string{"1900-02-29", "2020-13-01", "yyyy-mm-dd", "2020-1-01"}},
		"time":                  {[]string{"08:30:06Z", "23:59:60Z", "08:30:06.283185+05:30"}, []string{"08:30:06", "24:00:00Z", "08:30:06+24:00"}},
		"duration":              {[]string{"P4DT12H30M5S", "P1Y", "PT0S", "P2W", "P1Y2M3DT4H5M6S"}, []string{"P", "PT", "P1", "P2D1Y", "PT1MT1S", "P1WT1H", "1D"}},
		"period":                {[]string{"2020-01-01T00:00:00Z/P1D", "P1D/2020-01-01T00:00:00Z", "2020-01-01T00:00:00Z/2020-01-02T00:00:00Z"}, []string{"P1D/P2D", "2020-01-01T00:00:00Z"}},
		"email":                 {[]string{"joe@example.com", "te~st@example.com", `"joe bloggs"@example.com`, "joe@[127.0.0.1]", "joe@[IPv6:::1]"}, []string{"joe", "@example.com", ".joe@example.com", "jo..e@example.com", "joe@-x.com", "a\tb@example.com"}},
		"hostname":              {[]string{"www.example.com", "xn--4gbwdl.xn--wgbh1c", "a"}, []string{"-a.com", "a..b", strings.Repeat("a", 64) + ".com", "a_b.com", ""}},
		"ipv4":                  {[]string{"192.168.0.1"}, []string{"256.0.0.1", "1.2.3", "01.2.3.4", "::1"}},
		"ipv6":                  {[]string{"::1", "2001:db8::8a2e:370:7334", "::ffff:1.2.3.4"}, []string{"12345::", "1.2.3.4", "fe80::1%eth0"}},
		"uri":                   {[]string{"http://example.com/a?b#c", "urn:isbn:0451450523", "http://[::1]:80/"}, []string{"//example.com", "relative/path", "http://[1.2.3.4]/"}},
		"uri-reference":         {[]string{"relative/path", "#frag", "http://x/y"}, []string{`\\WINDOWS\fileshare`, "http://x/%zz"}},
		"uri-template":          {[]string{"http://example.com/dictionary/{term:1}/{term}", "http://x/{?a,b}"}, []string{"http://x/{a", "http://x/{a{b}}", "http://x/}"}},
		"json-pointer":          {[]string{"", "/foo/0", "/a~1b/~0"}, []string{"foo", "/a~2", "/a~"}},
		"relative-json-pointer": {[]string{"0", "1/foo", "2#"}, []string{"/foo", "01", "-1", "0##"}},
		"uuid":                  {[]string{"2EB8AA08-AA98-11EA-B4AA-73B441D16380"}, []string{"2eb8aa08-aa98-11ea-b4aa-73b441d1638", "2eb8aa08aa9811eab4aa73b441d16380"}},
		"regex":                 {[]string{"^[a-z]+$"}, []string{"(", "[a-"}},
		"semver":                {[]string{"1.0.0", "1.0.0-alpha.1+build.5", "1.0.0-x-y-z.--"}, []string{"1.0", "01.0.0", "1.0.0-01", "1.0.0+", "v1.0.0"}},
	}
	for name, c := range cases {
		f := lookupFormat(name)
		if f == nil {
			t.Fatalf("format %s unknown", name)
		}
		for _, s := range c.good {
			if err := f.check(s); err != nil {
				t.Errorf("%s %q refused: %v", name, s, err)
			}
		}
		for _, s := range c.bad {
			if f.check(s) == nil {
				t.Errorf("%s %q accepted", name, s)
			}
		}
		if f.check(42) != nil {
			t.Errorf("%s: a number is not a string and must pass", name)
		}
	}
}
