// Package checkfmt writes the report of `tv check` in the formats CI
// systems read: text for people, one JSON document, SARIF 2.1.0 (GitHub
// code scanning), GitHub Actions workflow commands (annotations on the
// changed files) and JUnit XML (GitLab, Jenkins). Every format carries
// one result per finding, with its rule, severity, file and line.
package checkfmt
