package checkfmt

import (
	"encoding/json"
	"io"

	"github.com/thalix/tv/icm"
)

// SARIFSchemaURI is the schema the SARIF log names.
const SARIFSchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string       `json:"id"`
	ShortDescription     sarifMessage `json:"shortDescription"`
	DefaultConfiguration sarifConfig  `json:"defaultConfiguration"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex *int            `json:"ruleIndex,omitempty"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// writeSARIF writes a SARIF 2.1.0 log with one run: the rules, and one
// result per finding located at its file (relative to %SRCROOT%, the
// repository root) and line.
func writeSARIF(w io.Writer, r *Report) error {
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{Name: "tv", Rules: []sarifRule{}}}, Results: []sarifResult{}}
	for _, rule := range r.Rules {
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{ID: rule.ID, ShortDescription: sarifMessage{rule.Summary}, DefaultConfiguration: sarifConfig{level(rule.Severity, false)}})
	}
	for _, f := range r.Findings {
		res := sarifResult{RuleID: f.Rule, Level: level(f.Severity, r.Strict), Message: sarifMessage{f.Message}}
		if i := ruleIndex(r.Rules, f.Rule); i >= 0 {
			res.RuleIndex = &i
		}
		loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: r.file(f), URIBaseID: "%SRCROOT%"}}}
		if f.Line > 0 {
			loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Line}
		}
		res.Locations = []sarifLocation{loc}
		run.Results = append(run.Results, res)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sarifLog{Schema: SARIFSchemaURI, Version: "2.1.0", Runs: []sarifRun{run}})
}

// level is SARIF's level of a finding: a warning is an error under
// --strict.
func level(s icm.Severity, strict bool) string {
	if s == icm.SeverityError || strict {
		return "error"
	}
	return "warning"
}
