package jsonschema

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Schema is a compiled schema. It is safe for concurrent use.
type Schema struct {
	doc   *document
	ptr   string // JSON Pointer in doc
	res   *resource
	draft Draft

	always *bool // a boolean schema (an empty object is true)

	ref, recursiveRef, dynamicRef *Schema
	dynamicAnchor                 string // $dynamicRef resolves dynamically to this anchor

	types    jsonType
	enum     []any // nil: no enum
	hasConst bool
	constant any
	format   *format
	minimum  *number
	maximum  *number
	exclusiveMinimum, exclusiveMaximum,
	multipleOf *number
	minLength, maxLength int // -1: absent
	pattern              *regexp.Regexp

	prefixItems     []*Schema // prefixItems (items as an array before 2020-12)
	items           *Schema   // items after the prefix (additionalItems before 2020-12)
	additionalItems bool      // items is additionalItems (for its message)
	minItems, maxItems,
	minContains, maxContains int
	uniqueItems      bool
	contains         *Schema
	unevaluatedItems *Schema

	minProps, maxProps    int
	required              []string
	dependentRequired     []dependency // sorted by property
	properties            map[string]*Schema
	patternProperties     []patternSchema
	additionalProperties  *Schema
	propertyNames         *Schema
	dependentSchemas      []dependentSchema // sorted by property
	unevaluatedProperties *Schema

	allOf, anyOf, oneOf              []*Schema
	not                              *Schema
	ifSchema, thenSchema, elseSchema *Schema
}

type patternSchema struct {
	re     *regexp.Regexp
	schema *Schema
}

type dependency struct {
	property string
	required []string
}

type dependentSchema struct {
	property string
	schema   *Schema
}

// isFalse reports whether s is the schema false.
func (s *Schema) isFalse() bool { return s.always != nil && !*s.always }

// Error is one failure of a value: where (the member names and array
// indices leading to the offending value; empty for the value itself) and
// what.
type Error struct {
	InstanceLocation []string
	Message          string
}

// String is "at '/a/0': message", or the message alone at the top.
func (e Error) String() string {
	if len(e.InstanceLocation) == 0 {
		return e.Message
	}
	return "at '/" + strings.Join(e.InstanceLocation, "/") + "': " + e.Message
}

func joinErrors(errs []Error) string {
	s := make([]string, len(errs))
	for i, e := range errs {
		s[i] = e.String()
	}
	return strings.Join(s, "; ")
}

// ValidationError is a value that does not match its schema: every
// innermost failure, joined by "; " in its message.
type ValidationError struct {
	Errors []Error
}

func (e *ValidationError) Error() string { return joinErrors(e.Errors) }

// Validate checks v, a JSON value as Unmarshal returns it (float64 and
// other Go numbers are accepted too), against s; the error is a
// *ValidationError.
func (s *Schema) Validate(v any) error {
	vd := validator{}
	if _, errs := vd.validate(v, s, false, false); errs != nil {
		return &ValidationError{Errors: errs}
	}
	return nil
}

// validator is the state of one validation.
type validator struct {
	path  []string // instance location of the value at hand
	scope []frame  // the schemas being applied, outermost first
	vid   int      // id of the value at hand (cycle detection)
	last  int      // last vid given out

	// Metaschema validation: meta is the metaschema applied at the
	// document root; an embedded resource of another draft (its JSON
	// Pointer in metaResources) is validated against its own.
	meta          *Schema
	metaResources map[string]*Schema
}

type frame struct {
	s   *Schema
	vid int
}

// errFast is the error of a check whose caller needs only to know whether
// it failed (not, if, a second oneOf match, contains).
var errFast = []Error{{Message: "invalid"}}

func (vd *validator) fail(errs []Error, fast bool, format string, args ...any) []Error {
	if fast {
		return errFast
	}
	return append(errs, Error{InstanceLocation: slices.Clone(vd.path), Message: fmt.Sprintf(format, args...)})
}

// annotations say which members or items of the value at hand a schema
// evaluated (for unevaluatedProperties and unevaluatedItems).
type annotations struct {
	allProps bool
	props    map[string]bool
	allItems bool
	items    int // items before this index were evaluated
	itemSet  map[int]bool
}

func (a *annotations) merge(b annotations) {
	a.allProps = a.allProps || b.allProps
	for k := range b.props {
		a.addProp(k)
	}
	a.allItems = a.allItems || b.allItems
	a.items = max(a.items, b.items)
	for i := range b.itemSet {
		a.addItem(i)
	}
}

func (a *annotations) addProp(k string) {
	if a.props == nil {
		a.props = map[string]bool{}
	}
	a.props[k] = true
}

func (a *annotations) addItem(i int) {
	if a.itemSet == nil {
		a.itemSet = map[int]bool{}
	}
	a.itemSet[i] = true
}

// child validates v, the member or item tok of the value at hand, against
// s.
func (vd *validator) child(v any, tok string, s *Schema, fast bool) []Error {
	vd.path = append(vd.path, tok)
	vid := vd.vid
	vd.last++
	vd.vid = vd.last
	_, errs := vd.validate(v, s, false, fast)
	vd.vid = vid
	vd.path = vd.path[:len(vd.path)-1]
	return errs
}

// pointer is the JSON Pointer of the value at hand.
func (vd *validator) pointer() string {
	var b strings.Builder
	for _, t := range vd.path {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}

// validate applies s to v. With need, it returns what s evaluated; with
// fast, it stops at the first failure and returns errFast. A nil error
// slice means v is valid.
func (vd *validator) validate(v any, s *Schema, need, fast bool) (ann annotations, errs []Error) {
	if s.always != nil {
		if *s.always {
			return ann, nil
		}
		return ann, vd.fail(nil, fast, "false schema")
	}
	if vd.metaResources != nil && s == vd.meta {
		if m := vd.metaResources[vd.pointer()]; m != nil && m != s {
			outer := vd.meta
			vd.meta, s = m, m
			defer func() { vd.meta = outer }()
		}
	}
	for i := len(vd.scope) - 1; i >= 0 && vd.scope[i].vid == vd.vid; i-- {
		if vd.scope[i].s == s {
			return ann, vd.fail(nil, fast, "the schema at %s applies itself to the same value (a reference cycle)", quote(s.doc.url+"#"+s.ptr))
		}
	}
	vd.scope = append(vd.scope, frame{s, vd.vid})
	defer func() { vd.scope = vd.scope[:len(vd.scope)-1] }()
	need = need || s.unevaluatedProperties != nil || s.unevaluatedItems != nil

	t := typeOf(v)
	if t == 0 {
		return ann, vd.fail(nil, fast, "%T is not a JSON value", v)
	}
	if s.types != 0 && s.types&t == 0 && !(s.types&typeInteger != 0 && t == typeNumber && isInteger(v)) {
		return ann, vd.fail(nil, fast, "got %s, want %s", t, s.types)
	}
	if s.hasConst && !equal(v, s.constant) {
		if isScalar(s.constant) {
			return ann, vd.fail(nil, fast, "value must be %s", display(s.constant))
		}
		return ann, vd.fail(nil, fast, "'const' failed")
	}
	if s.enum != nil && !slices.ContainsFunc(s.enum, func(e any) bool { return equal(v, e) }) {
		if !slices.ContainsFunc(s.enum, func(e any) bool { return !isScalar(e) }) {
			want := make([]string, len(s.enum))
			for i, e := range s.enum {
				want[i] = display(e)
			}
			if len(want) == 1 {
				return ann, vd.fail(nil, fast, "value must be %s", want[0])
			}
			return ann, vd.fail(nil, fast, "value must be one of %s", strings.Join(want, ", "))
		}
		return ann, vd.fail(nil, fast, "'enum' failed")
	}
	if s.format != nil {
		if err := s.format.check(v); err != nil {
			return ann, vd.fail(nil, fast, "%s is not valid %s: %v", display(v), s.format.name, err)
		}
	}

	// inPlace applies sub to v and keeps what it evaluated when it passes,
	// or, with failing too, when its failure fails s anyway (then keeping
	// it only spares unevaluated* reporting members sub did look at).
	inPlace := func(sub *Schema, fast, failing bool) []Error {
		a, e := vd.validate(v, sub, need, fast)
		if need && (e == nil || failing) {
			ann.merge(a)
		}
		return e
	}
	if s.ref != nil {
		e := inPlace(s.ref, fast, true)
		if s.draft < Draft2019 {
			return ann, e
		}
		if errs = append(errs, e...); fast && errs != nil {
			return ann, errFast
		}
	}

	switch v := v.(type) {
	case map[string]any:
		errs = vd.object(v, s, &ann, need, fast, errs)
	case []any:
		errs = vd.array(v, s, &ann, need, fast, errs)
	case string:
		errs = vd.str(v, s, fast, errs)
	case nil, bool:
	default:
		errs = vd.num(v, s, fast, errs)
	}
	if fast && errs != nil {
		return ann, errFast
	}

	if s.recursiveRef != nil {
		target := s.recursiveRef
		if target.res.recursiveAnchor {
			for _, f := range vd.scope {
				if f.s.res.recursiveAnchor && f.s.res.root != nil {
					target = f.s.res.root
					break
				}
			}
		}
		errs = append(errs, inPlace(target, fast, true)...)
	}
	if s.dynamicRef != nil {
		target := s.dynamicRef
		if s.dynamicAnchor != "" {
			for _, f := range vd.scope {
				if d := f.s.res.dynamic[s.dynamicAnchor]; d != nil {
					target = d
					break
				}
			}
		}
		errs = append(errs, inPlace(target, fast, true)...)
	}
	if fast && errs != nil {
		return ann, errFast
	}

	if s.not != nil {
		if _, e := vd.validate(v, s.not, false, true); e == nil {
			errs = vd.fail(errs, fast, "'not' failed")
		}
	}
	for _, sub := range s.allOf {
		if errs = append(errs, inPlace(sub, fast, true)...); fast && errs != nil {
			return ann, errFast
		}
	}
	if s.anyOf != nil {
		var all []Error
		matched := false
		for _, sub := range s.anyOf {
			e := inPlace(sub, fast || matched, false)
			if e == nil {
				matched = true
				if !need {
					break
				}
			} else if !matched {
				all = append(all, e...)
			}
		}
		if !matched {
			errs = append(errs, all...)
		}
	}
	if s.oneOf != nil {
		var all []Error
		first := -1
		for i, sub := range s.oneOf {
			a, e := vd.validate(v, sub, need, fast || first >= 0)
			if e != nil {
				if first < 0 {
					all = append(all, e...)
				}
				continue
			}
			if need {
				// Even a failing oneOf counts what its matches evaluated, so
				// unevaluated* does not add noise.
				ann.merge(a)
			}
			if first >= 0 {
				errs = vd.fail(errs, fast, "'oneOf' failed, subschemas %d, %d matched", first, i)
				break
			}
			first = i
		}
		if first < 0 {
			errs = append(errs, all...)
		}
	}
	if s.ifSchema != nil {
		if inPlace(s.ifSchema, true, false) == nil {
			if s.thenSchema != nil {
				errs = append(errs, inPlace(s.thenSchema, fast, true)...)
			}
		} else if s.elseSchema != nil {
			errs = append(errs, inPlace(s.elseSchema, fast, true)...)
		}
	}
	if obj, ok := v.(map[string]any); ok {
		for _, d := range s.dependentSchemas {
			if _, ok := obj[d.property]; ok {
				errs = append(errs, inPlace(d.schema, fast, true)...)
			}
		}
	}
	if fast && errs != nil {
		return ann, errFast
	}

	// unevaluated*, once every other keyword has had its say.
	if s.unevaluatedProperties != nil {
		if obj, ok := v.(map[string]any); ok && !ann.allProps {
			for _, k := range sortedKeys(obj) {
				if !ann.props[k] {
					errs = append(errs, vd.child(obj[k], k, s.unevaluatedProperties, fast)...)
				}
			}
			ann.allProps = true
		}
	}
	if s.unevaluatedItems != nil {
		if arr, ok := v.([]any); ok && !ann.allItems {
			for i := ann.items; i < len(arr); i++ {
				if !ann.itemSet[i] {
					errs = append(errs, vd.child(arr[i], strconv.Itoa(i), s.unevaluatedItems, fast)...)
				}
			}
			ann.allItems = true
		}
	}
	if errs != nil && fast {
		return ann, errFast
	}
	return ann, errs
}

func (vd *validator) object(obj map[string]any, s *Schema, ann *annotations, need, fast bool, errs []Error) []Error {
	if s.minProps >= 0 && len(obj) < s.minProps {
		errs = vd.fail(errs, fast, "minProperties: got %d, want %d", len(obj), s.minProps)
	}
	if s.maxProps >= 0 && len(obj) > s.maxProps {
		errs = vd.fail(errs, fast, "maxProperties: got %d, want %d", len(obj), s.maxProps)
	}
	if missing := missing(obj, s.required); missing != nil {
		if len(missing) == 1 {
			errs = vd.fail(errs, fast, "missing property %s", quote(missing[0]))
		} else {
			errs = vd.fail(errs, fast, "missing properties %s", joinQuoted(missing))
		}
	}
	for _, d := range s.dependentRequired {
		if _, ok := obj[d.property]; ok {
			if missing := missing(obj, d.required); missing != nil {
				errs = vd.fail(errs, fast, "properties %s required, if %s exists", joinQuoted(missing), quote(d.property))
			}
		}
	}
	if fast && errs != nil {
		return errFast
	}

	if s.properties == nil && s.patternProperties == nil && s.additionalProperties == nil && s.propertyNames == nil {
		return errs
	}
	keys := sortedKeys(obj)
	var extra []string
	for _, k := range keys {
		evaluated := false
		if sub, ok := s.properties[k]; ok {
			evaluated = true
			errs = append(errs, vd.child(obj[k], k, sub, fast)...)
		}
		for _, p := range s.patternProperties {
			if p.re.MatchString(k) {
				evaluated = true
				errs = append(errs, vd.child(obj[k], k, p.schema, fast)...)
			}
		}
		if !evaluated && s.additionalProperties != nil {
			evaluated = true
			if s.additionalProperties.isFalse() {
				extra = append(extra, k)
			} else {
				errs = append(errs, vd.child(obj[k], k, s.additionalProperties, fast)...)
			}
		}
		if fast && (errs != nil || extra != nil) {
			return errFast
		}
		if evaluated && need {
			ann.addProp(k)
		}
	}
	if extra != nil {
		errs = vd.fail(errs, fast, "additional properties %s not allowed", joinQuoted(extra))
	}
	if s.propertyNames != nil {
		for _, k := range keys {
			vd.last++
			vid := vd.vid
			vd.vid = vd.last
			_, e := vd.validate(k, s.propertyNames, false, fast)
			vd.vid = vid
			if e != nil {
				if fast {
					return errFast
				}
				for _, x := range e {
					errs = vd.fail(errs, false, "invalid propertyName %s: %s", quote(k), x.Message)
				}
			}
		}
	}
	return errs
}

// missing returns the names in required that obj lacks (nil when none).
func missing(obj map[string]any, required []string) []string {
	var out []string
	for _, r := range required {
		if _, ok := obj[r]; !ok {
			out = append(out, r)
		}
	}
	return out
}

func (vd *validator) array(arr []any, s *Schema, ann *annotations, need, fast bool, errs []Error) []Error {
	if s.minItems >= 0 && len(arr) < s.minItems {
		errs = vd.fail(errs, fast, "minItems: got %d, want %d", len(arr), s.minItems)
	}
	if s.maxItems >= 0 && len(arr) > s.maxItems {
		errs = vd.fail(errs, fast, "maxItems: got %d, want %d", len(arr), s.maxItems)
	}
	if s.uniqueItems {
	dup:
		for i := 1; i < len(arr); i++ {
			for j := 0; j < i; j++ {
				if equal(arr[i], arr[j]) {
					errs = vd.fail(errs, fast, "items at %d and %d are equal", j, i)
					break dup
				}
			}
		}
	}
	if fast && errs != nil {
		return errFast
	}

	i := 0
	for ; i < len(s.prefixItems) && i < len(arr); i++ {
		if errs = append(errs, vd.child(arr[i], strconv.Itoa(i), s.prefixItems[i], fast)...); fast && errs != nil {
			return errFast
		}
	}
	if need {
		ann.items = max(ann.items, i)
	}
	if s.items != nil {
		if s.additionalItems && s.items.isFalse() {
			if i < len(arr) {
				errs = vd.fail(errs, fast, "last %d additionalItem(s) not allowed", len(arr)-i)
			}
		} else {
			for ; i < len(arr); i++ {
				if errs = append(errs, vd.child(arr[i], strconv.Itoa(i), s.items, fast)...); fast && errs != nil {
					return errFast
				}
			}
		}
		ann.allItems = true
	}

	if s.contains != nil {
		var matched []int
		for i, item := range arr {
			if vd.child(item, strconv.Itoa(i), s.contains, true) == nil {
				matched = append(matched, i)
				if need && s.draft >= Draft2020 {
					ann.addItem(i)
				}
			}
		}
		at := func() string {
			s := fmt.Sprint(matched)
			return s[1 : len(s)-1]
		}
		switch {
		case s.minContains < 0 && len(matched) == 0:
			errs = vd.fail(errs, fast, "no items match contains schema")
		case len(matched) < s.minContains && len(matched) == 0:
			errs = vd.fail(errs, fast, "min %d items required to match contains schema, but none matched", s.minContains)
		case len(matched) < s.minContains:
			errs = vd.fail(errs, fast, "min %d items required to match contains schema, but matched %d items at %s", s.minContains, len(matched), at())
		}
		if s.maxContains >= 0 && len(matched) > s.maxContains {
			errs = vd.fail(errs, fast, "max %d items required to match contains schema, but matched %d items at %s", s.maxContains, len(matched), at())
		}
	}
	return errs
}

func (vd *validator) str(str string, s *Schema, fast bool, errs []Error) []Error {
	if s.minLength >= 0 || s.maxLength >= 0 {
		n := utf8.RuneCountInString(str)
		if s.minLength >= 0 && n < s.minLength {
			errs = vd.fail(errs, fast, "minLength: got %d, want %d", n, s.minLength)
		}
		if s.maxLength >= 0 && n > s.maxLength {
			errs = vd.fail(errs, fast, "maxLength: got %d, want %d", n, s.maxLength)
		}
	}
	if s.pattern != nil && !s.pattern.MatchString(str) {
		errs = vd.fail(errs, fast, "%s does not match pattern %s", quote(str), quote(s.pattern.String()))
	}
	return errs
}

func (vd *validator) num(v any, s *Schema, fast bool, errs []Error) []Error {
	if s.minimum == nil && s.maximum == nil && s.exclusiveMinimum == nil && s.exclusiveMaximum == nil && s.multipleOf == nil {
		return errs
	}
	n, ok := newNumber(v)
	if !ok {
		return vd.fail(errs, fast, "%v is not a JSON number", v)
	}
	if m := s.minimum; m != nil && n.cmp(m) < 0 {
		errs = vd.fail(errs, fast, "minimum: got %s, want %s", n.text, m.text)
	}
	if m := s.maximum; m != nil && n.cmp(m) > 0 {
		errs = vd.fail(errs, fast, "maximum: got %s, want %s", n.text, m.text)
	}
	if m := s.exclusiveMinimum; m != nil && n.cmp(m) <= 0 {
		errs = vd.fail(errs, fast, "exclusiveMinimum: got %s, want %s", n.text, m.text)
	}
	if m := s.exclusiveMaximum; m != nil && n.cmp(m) >= 0 {
		errs = vd.fail(errs, fast, "exclusiveMaximum: got %s, want %s", n.text, m.text)
	}
	if m := s.multipleOf; m != nil && !n.multipleOf(m) {
		errs = vd.fail(errs, fast, "multipleOf: got %s, want %s", n.text, m.text)
	}
	return errs
}
