// Package jsonschema compiles and applies JSON Schemas: drafts 4, 6, 7,
// 2019-09 and 2020-12 (the default). `tv mcp doctor` uses it to check the
// schemas and results any MCP server sends, whatever draft they declare.
// (tv's own servers check arguments with github.com/google/jsonschema-go,
// the MCP SDK's library, since their schemas are 2020-12 only. That
// library cannot replace this package for the doctor: it has no drafts
// 4, 6 or 2019-09 — a schema declaring one is silently read as 2020-12 —
// and on the JSON-Schema-Test-Suite's draft 7 files it ships, v0.4.3
// answers 32 of 913 tests wrongly; this package passes every test of both
// drafts (TestSuite).)
//
// It costs nothing at start-up: the drafts' metaschemas (metaschemas/,
// the specification's files as json-schema.org publishes them, embedded)
// are parsed and compiled on the first Compile, not at package init.
//
// # Compile
//
// Compile validates a schema document against its draft's metaschema
// (formats asserted, so a bad "pattern" or "$id" is reported there), then
// resolves every reference: inside the document by JSON Pointer, $anchor,
// $dynamicAnchor or an embedded resource's $id; the drafts' metaschemas by
// their URLs; any other document only through Options.Load (by default
// none is loaded).
//
// # Validate
//
// Validate reports every innermost failure with the location of the
// offending value: "at '/edits/0': missing property 'find'". Types,
// enum, const and format stop a schema's other checks on the same value;
// everything else is reported together. Members and dependencies are
// checked in sorted order, so messages are stable.
//
// Supported: every keyword of the five drafts' core, applicator,
// validation and unevaluated vocabularies, including $dynamicRef and
// $recursiveRef ("dependencies" is honoured in every draft, as before). "format" asserts (before 2019-09, and in metaschema
// validation) for date-time, date, time, duration, period, email,
// hostname, ipv4, ipv6, uri, iri, uri-reference, iri-reference,
// uri-template, json-pointer, relative-json-pointer, uuid, regex and
// semver; other formats, and from 2019-09 on every format, only annotate.
// The content keywords only annotate. Regular expressions are Go's (RE2).
// A custom metaschema ($schema naming a document Options.Load returns) is
// read for its draft only; its vocabularies are not applied.
package jsonschema
