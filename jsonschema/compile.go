package jsonschema

import (
	"embed"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Draft is a JSON Schema specification version.
type Draft int

// The drafts Compile knows.
const (
	Draft4    Draft = 4
	Draft6    Draft = 6
	Draft7    Draft = 7
	Draft2019 Draft = 2019 // 2019-09
	Draft2020 Draft = 2020 // 2020-12
)

// URL is the draft's metaschema URL, as $schema names it.
func (d Draft) URL() string {
	switch d {
	case Draft4:
		return "http://json-schema.org/draft-04/schema"
	case Draft6:
		return "http://json-schema.org/draft-06/schema"
	case Draft7:
		return "http://json-schema.org/draft-07/schema"
	case Draft2019:
		return "https://json-schema.org/draft/2019-09/schema"
	}
	return "https://json-schema.org/draft/2020-12/schema"
}

// draftOf maps a $schema value to its draft (http or https, with or without
// an empty fragment).
func draftOf(s string) (Draft, bool) {
	s = strings.TrimSuffix(s, "#")
	if t, ok := strings.CutPrefix(s, "https://"); ok {
		s = t
	} else if t, ok := strings.CutPrefix(s, "http://"); ok {
		s = t
	} else {
		return 0, false
	}
	switch s {
	case "json-schema.org/draft-04/schema":
		return Draft4, true
	case "json-schema.org/draft-06/schema":
		return Draft6, true
	case "json-schema.org/draft-07/schema":
		return Draft7, true
	case "json-schema.org/draft/2019-09/schema":
		return Draft2019, true
	case "json-schema.org/draft/2020-12/schema", "json-schema.org/schema":
		return Draft2020, true
	}
	return 0, false
}

// Options tune Compile. The zero value compiles draft 2020-12 and loads
// no external reference.
type Options struct {
	// URL is the document's base URI ("mem:///schema.json" when empty),
	// against which relative $id and $ref resolve.
	URL string
	// DefaultDraft applies when the schema has no $schema (Draft2020 when
	// zero).
	DefaultDraft Draft
	// AssertFormat makes "format" assert in every draft (by default it
	// asserts before 2019-09 only).
	AssertFormat bool
	// Load returns the document at an absolute URL that a $ref or $schema
	// names and that is neither inside the schema nor a draft's
	// metaschema. Nil refuses every such reference.
	Load func(url string) (any, error)
}

// InvalidSchemaError says a document is not a valid schema of its draft:
// it failed validation against the draft's metaschema.
type InvalidSchemaError struct {
	// URL is the document's URL.
	URL string
	// Errors are the failures, at locations within the schema document.
	Errors []Error
}

func (e *InvalidSchemaError) Error() string { return joinErrors(e.Errors) }

// CompileError is a schema that passes its metaschema but cannot be
// compiled: a reference that resolves to nothing or is not loaded, an
// anchor or $id defined twice, a regular expression Go cannot compile.
type CompileError struct {
	// Location is the JSON Pointer of the offending keyword in the schema
	// document.
	Location string
	// Err says what is wrong.
	Err error
}

func (e *CompileError) Error() string { return "at '" + e.Location + "': " + e.Err.Error() }

func (e *CompileError) Unwrap() error { return e.Err }

// Compile compiles doc (a JSON value as Unmarshal returns it) as a JSON
// Schema. Its draft is the one its $schema names, else opts.DefaultDraft;
// it is first validated against that draft's metaschema
// (*InvalidSchemaError), then compiled (*CompileError).
func Compile(doc any, opts *Options) (*Schema, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.URL == "" {
		o.URL = "mem:///schema.json"
	}
	if o.DefaultDraft == 0 {
		o.DefaultDraft = Draft2020
	}
	u, err := url.Parse(o.URL)
	if err != nil || !u.IsAbs() {
		return nil, fmt.Errorf("jsonschema: URL %q is not an absolute URL", o.URL)
	}
	u.Fragment, u.RawFragment = "", ""
	c := newCompiler(o.Load, false)
	c.assertFormat = o.AssertFormat
	d, err := c.addDoc(u.String(), doc, o.DefaultDraft)
	if err != nil {
		return nil, err
	}
	s := c.schemaAt(d, "")
	if err := c.drain(); err != nil {
		return nil, err
	}
	return s, nil
}

// document is one JSON document holding schemas.
type document struct {
	url       string
	root      any
	resources map[string]*resource // by JSON Pointer
	walked    map[string]bool      // the locations collect has seen
}

// resourceFor returns the innermost schema resource holding ptr.
func (d *document) resourceFor(ptr string) *resource {
	for {
		if r, ok := d.resources[ptr]; ok {
			return r
		}
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return d.resources[""]
		}
		ptr = ptr[:i]
	}
}

// resource is a schema resource: a root or a subschema with its own $id.
type resource struct {
	doc   *document
	ptr   string
	id    string // absolute URI, no fragment
	draft Draft
	// anchors maps $anchor, $dynamicAnchor and (before 2019-09) id
	// fragment names to JSON Pointers.
	anchors map[string]string
	// dynamic maps each $dynamicAnchor name to its compiled schema.
	dynamic map[string]*Schema
	// recursiveAnchor is "$recursiveAnchor": true at the resource root;
	// root is then the compiled root.
	recursiveAnchor bool
	root            *Schema
	indexed         bool
}

// compiler compiles schemas of one Compile call (or, for metaCompiler,
// the metaschemas).
type compiler struct {
	load         func(string) (any, error)
	isMeta       bool // compiling the drafts' metaschemas: formats always assert
	assertFormat bool
	docs         map[string]*document // by URL
	ids          map[string]*resource // by absolute id (and document URL)
	schemas      map[string]*Schema   // by document URL + "#" + pointer
	queue        []*Schema
	draftLoading map[string]bool
}

func newCompiler(load func(string) (any, error), isMeta bool) *compiler {
	return &compiler{
		load: load, isMeta: isMeta,
		docs: map[string]*document{}, ids: map[string]*resource{}, schemas: map[string]*Schema{},
	}
}

// addDoc registers a document: collects its resources and anchors and, for
// a document that is not a metaschema, validates it against its draft's
// metaschema.
func (c *compiler) addDoc(u string, root any, draft Draft) (*document, error) {
	d := &document{url: u, root: root, resources: map[string]*resource{}, walked: map[string]bool{}}
	if err := c.collect(d, root, "", u, draft); err != nil {
		return nil, err
	}
	c.docs[u] = d
	if _, ok := c.ids[u]; !ok {
		c.ids[u] = d.resources[""]
	}
	if !c.isMeta {
		if err := validateAgainstMeta(d, ""); err != nil {
			return nil, err
		}
	}
	c.index(d)
	return d, nil
}

// addSubschema prepares the schema at ptr in d, a location no keyword
// marks as a schema (a $ref may point anywhere): its resources and anchors
// are collected and it is validated against its draft's metaschema.
func (c *compiler) addSubschema(d *document, ptr string) error {
	if d.walked[ptr] {
		return nil
	}
	v, _ := lookup(d.root, ptr)
	r := d.resourceFor(ptr)
	if err := c.collect(d, v, ptr, r.id, r.draft); err != nil {
		return err
	}
	if !c.isMeta {
		if err := validateAgainstMeta(d, ptr); err != nil {
			return err
		}
	}
	c.index(d)
	return nil
}

// index registers the ids of d's resources and compiles their dynamic
// anchors and recursive roots.
func (c *compiler) index(d *document) {
	for _, r := range d.resources {
		if r.indexed {
			continue
		}
		r.indexed = true
		if _, ok := c.ids[r.id]; !ok {
			c.ids[r.id] = r
		}
		for name := range r.dynamic {
			r.dynamic[name] = c.schemaAt(d, r.anchors[name])
		}
		if r.recursiveAnchor {
			r.root = c.schemaAt(d, r.ptr)
		}
	}
}

// subschemaKeywords lists, per draft, where subschemas sit: "kw" (a
// schema), "kw/*" (an object of schemas), "kw/[]" (an array of schemas).
func subschemaKeywords(d Draft) []string {
	kws := []string{"definitions/*", "not", "allOf/[]", "anyOf/[]", "oneOf/[]", "properties/*",
		"additionalProperties", "patternProperties/*", "items", "items/[]", "additionalItems", "dependencies/*"}
	if d >= Draft6 {
		kws = append(kws, "propertyNames", "contains")
	}
	if d >= Draft7 {
		kws = append(kws, "if", "then", "else")
	}
	if d >= Draft2019 {
		kws = append(kws, "$defs/*", "dependentSchemas/*", "unevaluatedProperties", "unevaluatedItems", "contentSchema")
	}
	if d >= Draft2020 {
		kws = append(kws, "prefixItems/[]")
	}
	return kws
}

// idOf is the schema's id without fragment ("" when none): "id" in draft
// 4, "$id" later; before 2019-09 an id beside $ref is ignored.
func idOf(obj map[string]any, d Draft) (id, frag string, ok bool) {
	kw := "$id"
	if d == Draft4 {
		kw = "id"
	}
	if d < Draft2019 {
		if _, ok := obj["$ref"]; ok {
			return "", "", false
		}
	}
	s, ok := obj[kw].(string)
	if !ok {
		return "", "", false
	}
	id, frag, _ = strings.Cut(s, "#")
	return id, frag, true
}

// collect walks the schema at ptr, recording resources and anchors.
func (c *compiler) collect(d *document, v any, ptr, base string, draft Draft) error {
	if d.walked[ptr] {
		return nil
	}
	d.walked[ptr] = true
	obj, ok := v.(map[string]any)
	if !ok {
		if ptr == "" {
			d.resources[""] = &resource{doc: d, ptr: "", id: base, draft: draft, anchors: map[string]string{}}
		}
		return nil
	}
	// $schema counts on a resource root only: the document root or a
	// subschema with an id.
	nd := draft
	if sch, ok := obj["$schema"].(string); ok {
		known, isKnown := draftOf(sch)
		if ptr == "" || hasID(obj, draft) || (isKnown && hasID(obj, known)) || (!isKnown && (hasID(obj, Draft4) || hasID(obj, Draft7))) {
			dr, err := c.draftFor(sch, ptr)
			if err != nil {
				return err
			}
			nd = dr
		}
	}
	id, _, _ := idOf(obj, nd)
	if id == "" && ptr != "" {
		nd = draft
		id, _, _ = idOf(obj, nd)
	}
	var res *resource
	if id != "" || ptr == "" {
		abs := base
		if id != "" {
			b, err := url.Parse(base)
			if err != nil {
				return &CompileError{ptr, fmt.Errorf("base URI %q: %v", base, err)}
			}
			r, err := url.Parse(id)
			if err != nil {
				return &CompileError{ptr, fmt.Errorf("$id %q is not a URI reference: %v", id, err)}
			}
			u := b.ResolveReference(r)
			u.Fragment, u.RawFragment = "", ""
			abs = u.String()
		}
		for _, r := range d.resources {
			if r.id == abs {
				return &CompileError{ptr, fmt.Errorf("$id %q is also the id of %q", abs, "#"+r.ptr)}
			}
		}
		res = &resource{doc: d, ptr: ptr, id: abs, draft: nd, anchors: map[string]string{}}
		d.resources[ptr] = res
		base = abs
	}
	cur := d.resourceFor(ptr)
	addAnchor := func(name string, dynamic bool) error {
		if p, ok := cur.anchors[name]; ok && p != ptr {
			return &CompileError{ptr, fmt.Errorf("anchor %q is also defined at %q", name, "#"+p)}
		}
		cur.anchors[name] = ptr
		if dynamic {
			if cur.dynamic == nil {
				cur.dynamic = map[string]*Schema{}
			}
			cur.dynamic[name] = nil
		}
		return nil
	}
	if cur.draft < Draft2019 {
		if _, frag, ok := idOf(obj, cur.draft); ok && frag != "" && !strings.HasPrefix(frag, "/") {
			if err := addAnchor(frag, false); err != nil {
				return err
			}
		}
	} else {
		if a, ok := obj["$anchor"].(string); ok {
			if err := addAnchor(a, false); err != nil {
				return err
			}
		}
		if cur.draft == Draft2019 && ptr == cur.ptr {
			if b, ok := obj["$recursiveAnchor"].(bool); ok && b {
				cur.recursiveAnchor = true
			}
		}
		if cur.draft >= Draft2020 {
			if a, ok := obj["$dynamicAnchor"].(string); ok {
				if err := addAnchor(a, true); err != nil {
					return err
				}
			}
		}
	}
	for _, kw := range subschemaKeywords(cur.draft) {
		name, shape, _ := strings.Cut(kw, "/")
		p := ptr + "/" + escapeToken(name)
		switch shape {
		case "":
			if sub, ok := obj[name]; ok {
				if err := c.collect(d, sub, p, base, cur.draft); err != nil {
					return err
				}
			}
		case "*":
			if m, ok := obj[name].(map[string]any); ok {
				for _, k := range sortedKeys(m) {
					if err := c.collect(d, m[k], p+"/"+escapeToken(k), base, cur.draft); err != nil {
						return err
					}
				}
			}
		case "[]":
			if a, ok := obj[name].([]any); ok {
				for i, sub := range a {
					if err := c.collect(d, sub, p+"/"+strconv.Itoa(i), base, cur.draft); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// hasID reports whether obj has a non-empty id (fragment aside) in draft d.
func hasID(obj map[string]any, d Draft) bool {
	id, _, ok := idOf(obj, d)
	return ok && id != ""
}

// draftFor resolves a $schema value to a draft: one of the known drafts,
// else the draft of the metaschema the loader returns for it.
func (c *compiler) draftFor(s, ptr string) (Draft, error) {
	if d, ok := draftOf(s); ok {
		return d, nil
	}
	loc := ptr + "/$schema"
	u, err := url.Parse(s)
	if err != nil || !u.IsAbs() {
		return 0, &CompileError{loc, fmt.Errorf("$schema %q is not an absolute URI", s)}
	}
	u.Fragment, u.RawFragment = "", ""
	if d, ok := draftOf(u.String()); ok {
		return d, nil
	}
	if c.draftLoading == nil {
		c.draftLoading = map[string]bool{}
	}
	if c.draftLoading[u.String()] {
		return 0, &CompileError{loc, fmt.Errorf("$schema %q refers to itself", s)}
	}
	c.draftLoading[u.String()] = true
	defer delete(c.draftLoading, u.String())
	doc, err := c.loadURL(u.String())
	if err != nil {
		return 0, &CompileError{loc, err}
	}
	m, _ := doc.(map[string]any)
	ms, ok := m["$schema"].(string)
	if !ok {
		return 0, &CompileError{loc, fmt.Errorf("metaschema %q has no $schema", s)}
	}
	return c.draftFor(ms, ptr)
}

func (c *compiler) loadURL(u string) (any, error) {
	if c.load == nil {
		return nil, fmt.Errorf("loading %q: external references are not loaded", u)
	}
	doc, err := c.load(u)
	if err != nil {
		return nil, fmt.Errorf("loading %q: %w", u, err)
	}
	return doc, nil
}

// schemaAt returns the (possibly not yet compiled) schema at ptr in d.
func (c *compiler) schemaAt(d *document, ptr string) *Schema {
	key := d.url + "#" + ptr
	if s, ok := c.schemas[key]; ok {
		return s
	}
	s := &Schema{doc: d, ptr: ptr, minLength: -1, maxLength: -1, minItems: -1, maxItems: -1,
		minContains: -1, maxContains: -1, minProps: -1, maxProps: -1}
	c.schemas[key] = s
	c.queue = append(c.queue, s)
	return s
}

// drain compiles every queued schema.
func (c *compiler) drain() error {
	for len(c.queue) > 0 {
		s := c.queue[0]
		c.queue = c.queue[1:]
		if err := c.compileSchema(s); err != nil {
			return err
		}
	}
	return nil
}

// resolveRef returns the schema ref (the value of keyword kw of the schema
// at ptr) refers to.
func (c *compiler) resolveRef(s *Schema, kw, ref string) (*Schema, error) {
	loc := s.ptr + "/" + escapeToken(kw)
	r, err := url.Parse(ref)
	if err != nil {
		return nil, &CompileError{loc, fmt.Errorf("%q is not a URI reference", ref)}
	}
	b, err := url.Parse(s.res.id)
	if err != nil {
		return nil, &CompileError{loc, err}
	}
	abs := b.ResolveReference(r)
	frag := abs.Fragment
	abs.Fragment, abs.RawFragment = "", ""
	return c.resolveURL(abs.String(), frag, ref, loc, s.draft)
}

// resolveURL returns the schema at target (an absolute URI without
// fragment) and fragment frag (a JSON Pointer or an anchor name), loading
// target when it is not known yet. The reference ref (as written, for
// messages), found at loc, asks for it; draft is its schema's.
func (c *compiler) resolveURL(target, frag, ref, loc string, draft Draft) (*Schema, error) {
	res, ok := c.ids[target]
	if !ok {
		if !c.isMeta && isMetaURL(target) {
			t, err := metaRef(target, frag)
			if err != nil {
				return nil, &CompileError{loc, err}
			}
			return t, nil
		}
		doc, err := c.loadURL(target)
		if err != nil {
			return nil, &CompileError{loc, err}
		}
		if _, err = c.addDoc(target, doc, draft); err != nil {
			return nil, err
		}
		res = c.ids[target]
	}
	ptr := res.ptr
	switch {
	case frag == "":
	case strings.HasPrefix(frag, "/"):
		ptr += frag
	default:
		p, ok := res.anchors[frag]
		if !ok {
			return nil, &CompileError{loc, fmt.Errorf("%s: anchor %q not found", quote(ref), frag)}
		}
		ptr = p
	}
	if _, ok := lookup(res.doc.root, ptr); !ok {
		return nil, &CompileError{loc, fmt.Errorf("%s: no such location", quote(ref))}
	}
	if c.isMeta && !res.doc.walked[ptr] {
		// The metaschemas are shared by every validation: they are not
		// re-indexed for a location that is no schema.
		return nil, &CompileError{loc, fmt.Errorf("%s: not a schema of the metaschema", quote(ref))}
	}
	if err := c.addSubschema(res.doc, ptr); err != nil {
		return nil, err
	}
	return c.schemaAt(res.doc, ptr), nil
}

// compileSchema fills in s from its JSON.
func (c *compiler) compileSchema(s *Schema) error {
	v, _ := lookup(s.doc.root, s.ptr)
	s.res = s.doc.resourceFor(s.ptr)
	s.draft = s.res.draft
	if b, ok := v.(bool); ok {
		s.always = &b
		return nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return &CompileError{s.ptr, fmt.Errorf("a schema must be an object or a boolean, not %s", typeOf(v))}
	}
	if len(obj) == 0 {
		t := true
		s.always = &t
		return nil
	}
	sub := func(kw string) *Schema {
		if _, ok := obj[kw]; !ok {
			return nil
		}
		return c.schemaAt(s.doc, s.ptr+"/"+escapeToken(kw))
	}
	subs := func(kw string) []*Schema {
		a, ok := obj[kw].([]any)
		if !ok {
			return nil
		}
		out := make([]*Schema, len(a))
		for i := range a {
			out[i] = c.schemaAt(s.doc, s.ptr+"/"+escapeToken(kw)+"/"+strconv.Itoa(i))
		}
		return out
	}
	subMap := func(kw string) map[string]*Schema {
		m, ok := obj[kw].(map[string]any)
		if !ok {
			return nil
		}
		out := make(map[string]*Schema, len(m))
		for k := range m {
			out[k] = c.schemaAt(s.doc, s.ptr+"/"+escapeToken(kw)+"/"+escapeToken(k))
		}
		return out
	}
	num := func(kw string) *number {
		n, ok := newNumber(obj[kw])
		if !ok {
			return nil
		}
		return &n
	}
	count := func(kw string) int { // a non-negative integer keyword; -1 when absent or not one
		const most = int64(^uint32(0) >> 1)
		n := num(kw)
		if n == nil || !n.integral() || n.exact().Sign() < 0 {
			return -1
		}
		if n.isInt {
			return int(min(n.i, most))
		}
		if r := n.exact().Num(); r.IsInt64() {
			return int(min(r.Int64(), most))
		}
		return int(most)
	}
	re := func(kw, pattern string) (*regexp.Regexp, error) {
		r, err := regexp.Compile(pattern)
		if err != nil {
			return nil, &CompileError{s.ptr + "/" + kw, fmt.Errorf("%s is not a valid regular expression: %v", quote(pattern), err)}
		}
		return r, nil
	}

	// core
	if ref, ok := obj["$ref"].(string); ok {
		t, err := c.resolveRef(s, "$ref", ref)
		if err != nil {
			return err
		}
		s.ref = t
		if s.draft < Draft2019 {
			return nil // every other keyword beside $ref is ignored
		}
	}
	if s.draft >= Draft2019 {
		if ref, ok := obj["$recursiveRef"].(string); ok {
			t, err := c.resolveRef(s, "$recursiveRef", ref)
			if err != nil {
				return err
			}
			s.recursiveRef = t
		}
	}
	if s.draft >= Draft2020 {
		if ref, ok := obj["$dynamicRef"].(string); ok {
			t, err := c.resolveRef(s, "$dynamicRef", ref)
			if err != nil {
				return err
			}
			s.dynamicRef = t
			if _, frag, _ := strings.Cut(ref, "#"); frag != "" && !strings.HasPrefix(frag, "/") {
				if a, _ := lookupString(t, "$dynamicAnchor"); a == frag {
					s.dynamicAnchor = frag
				}
			}
		}
	}

	// applicators
	s.allOf, s.anyOf, s.oneOf, s.not = subs("allOf"), subs("anyOf"), subs("oneOf"), sub("not")
	if s.draft < Draft2020 {
		if _, ok := obj["items"].([]any); ok {
			s.prefixItems = subs("items")
			s.items = sub("additionalItems")
			s.additionalItems = s.items != nil
		} else {
			s.items = sub("items")
		}
	} else {
		s.prefixItems = subs("prefixItems")
		s.items = sub("items")
	}
	s.properties = subMap("properties")
	if m := subMap("patternProperties"); m != nil {
		for _, k := range sortedKeys(m) {
			r, err := re("patternProperties", k)
			if err != nil {
				return err
			}
			s.patternProperties = append(s.patternProperties, patternSchema{r, m[k]})
		}
	}
	s.additionalProperties = sub("additionalProperties")
	if m, ok := obj["dependencies"].(map[string]any); ok {
		for _, k := range sortedKeys(m) {
			if a, ok := m[k].([]any); ok {
				s.dependentRequired = append(s.dependentRequired, dependency{k, stringItems(a)})
			} else {
				s.dependentSchemas = append(s.dependentSchemas, dependentSchema{k, c.schemaAt(s.doc, s.ptr+"/dependencies/"+escapeToken(k))})
			}
		}
	}

	// validation
	switch t := obj["type"].(type) {
	case string:
		s.types = typeFromName(t)
	case []any:
		for _, n := range t {
			if n, ok := n.(string); ok {
				s.types |= typeFromName(n)
			}
		}
	}
	if e, ok := obj["enum"].([]any); ok {
		s.enum = e
		if s.enum == nil {
			s.enum = []any{}
		}
	}
	s.multipleOf = num("multipleOf")
	if m := s.multipleOf; m != nil && m.exact().Sign() <= 0 {
		s.multipleOf = nil
	}
	s.maximum, s.minimum = num("maximum"), num("minimum")
	if b, ok := obj["exclusiveMaximum"].(bool); ok {
		if b {
			s.exclusiveMaximum, s.maximum = s.maximum, nil
		}
	} else {
		s.exclusiveMaximum = num("exclusiveMaximum")
	}
	if b, ok := obj["exclusiveMinimum"].(bool); ok {
		if b {
			s.exclusiveMinimum, s.minimum = s.minimum, nil
		}
	} else {
		s.exclusiveMinimum = num("exclusiveMinimum")
	}
	s.minLength, s.maxLength = count("minLength"), count("maxLength")
	if p, ok := obj["pattern"].(string); ok {
		r, err := re("pattern", p)
		if err != nil {
			return err
		}
		s.pattern = r
	}
	s.minItems, s.maxItems = count("minItems"), count("maxItems")
	s.uniqueItems, _ = obj["uniqueItems"].(bool)
	s.minProps, s.maxProps = count("minProperties"), count("maxProperties")
	if a, ok := obj["required"].([]any); ok {
		s.required = stringItems(a)
	}
	if name, ok := obj["format"].(string); ok && (c.isMeta || c.assertFormat || s.draft < Draft2019) {
		s.format = lookupFormat(name)
	}

	if s.draft >= Draft6 {
		s.contains = sub("contains")
		s.propertyNames = sub("propertyNames")
		if v, ok := obj["const"]; ok {
			s.hasConst, s.constant = true, v
		}
	}
	if s.draft >= Draft7 {
		s.ifSchema = sub("if")
		if s.ifSchema != nil {
			// A boolean if leaves one branch unreachable: it is not compiled
			// (so its references need not resolve).
			b, isBool := obj["if"].(bool)
			if !isBool || b {
				s.thenSchema = sub("then")
			}
			if !isBool || !b {
				s.elseSchema = sub("else")
			}
		}
	}
	if s.draft >= Draft2019 {
		if s.contains != nil {
			s.minContains, s.maxContains = count("minContains"), count("maxContains")
		}
		if m, ok := obj["dependentRequired"].(map[string]any); ok {
			for _, k := range sortedKeys(m) {
				if a, ok := m[k].([]any); ok {
					s.dependentRequired = append(s.dependentRequired, dependency{k, stringItems(a)})
				}
			}
		}
		if m := subMap("dependentSchemas"); m != nil {
			for _, k := range sortedKeys(m) {
				s.dependentSchemas = append(s.dependentSchemas, dependentSchema{k, m[k]})
			}
		}
		s.unevaluatedItems = sub("unevaluatedItems")
		s.unevaluatedProperties = sub("unevaluatedProperties")
	}
	return nil
}

// lookupString returns the string member kw of s's JSON object.
func lookupString(s *Schema, kw string) (string, bool) {
	v, _ := lookup(s.doc.root, s.ptr)
	obj, _ := v.(map[string]any)
	str, ok := obj[kw].(string)
	return str, ok
}

// stringItems returns the strings among a.
func stringItems(a []any) []string {
	out := make([]string, 0, len(a))
	for _, v := range a {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// The drafts' metaschemas, compiled on first use (never at package init:
// tv pays nothing for them unless it validates a schema).

//go:embed metaschemas
var metaFiles embed.FS

// metaPath maps a metaschema URL to its file ("" when it is none).
func metaPath(u string) string {
	rest, ok := strings.CutPrefix(u, "https://json-schema.org/")
	if !ok {
		if rest, ok = strings.CutPrefix(u, "http://json-schema.org/"); !ok {
			return ""
		}
	}
	p := "metaschemas/" + rest + ".json"
	if _, err := metaFiles.Open(p); err != nil {
		return ""
	}
	return p
}

func isMetaURL(u string) bool { return metaPath(u) != "" }

var meta struct {
	sync.Mutex
	c     *compiler
	roots map[Draft]*Schema
}

func loadMeta(u string) (any, error) {
	p := metaPath(u)
	if p == "" {
		return nil, fmt.Errorf("%s is not a metaschema", u)
	}
	b, err := metaFiles.ReadFile(p)
	if err != nil {
		return nil, err
	}
	return Unmarshal(b)
}

func metaCompiler() *compiler {
	if meta.c == nil {
		meta.c = newCompiler(loadMeta, true)
		meta.roots = map[Draft]*Schema{}
	}
	return meta.c
}

// metaSchema returns the compiled metaschema of draft d.
func metaSchema(d Draft) (*Schema, error) {
	meta.Lock()
	defer meta.Unlock()
	if s := meta.roots[d]; s != nil {
		return s, nil
	}
	c := metaCompiler()
	doc, err := loadMeta(d.URL())
	if err != nil {
		return nil, err
	}
	dd, ok := c.docs[d.URL()]
	if !ok {
		if dd, err = c.addDoc(d.URL(), doc, d); err != nil {
			return nil, err
		}
	}
	s := c.schemaAt(dd, "")
	if err := c.drain(); err != nil {
		c.queue = nil
		return nil, err
	}
	meta.roots[d] = s
	return s, nil
}

// metaRef resolves a reference into a metaschema (a schema may $ref
// "https://json-schema.org/draft/2020-12/schema").
func metaRef(u, frag string) (*Schema, error) {
	meta.Lock()
	defer meta.Unlock()
	c := metaCompiler()
	s, err := c.resolveURL(u, frag, u+"#"+frag, "", Draft2020)
	if err == nil {
		err = c.drain()
	}
	if err != nil {
		c.queue = nil
		var ce *CompileError
		if errors.As(err, &ce) {
			return nil, ce.Err
		}
		return nil, err
	}
	return s, nil
}

// validateAgainstMeta validates the schema at ptr in d against the
// metaschema of its resource's draft; an embedded resource of another draft
// is validated against its own draft's metaschema.
func validateAgainstMeta(d *document, ptr string) error {
	m, err := metaSchema(d.resourceFor(ptr).draft)
	if err != nil {
		return err
	}
	vd := &validator{meta: m}
	if ptr != "" {
		for _, tok := range strings.Split(ptr[1:], "/") {
			vd.path = append(vd.path, unescapeToken(tok))
		}
	}
	v, _ := lookup(d.root, ptr)
	for rp, r := range d.resources {
		if rp != ptr {
			rm, err := metaSchema(r.draft)
			if err != nil {
				return err
			}
			if vd.metaResources == nil {
				vd.metaResources = map[string]*Schema{}
			}
			vd.metaResources[rp] = rm
		}
	}
	if _, errs := vd.validate(v, m, false, false); errs != nil {
		return &InvalidSchemaError{URL: d.url, Errors: errs}
	}
	return nil
}
