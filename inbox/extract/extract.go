package extract

import (
	"encoding/json"
	"time"
)

// Attachment is one attached file as received; Data is the decoded
// content (no transfer encoding).
type Attachment struct {
	Filename    string
	ContentType string
	Data        []byte
}

// Input is the part of an e-mail the extractor reads.
type Input struct {
	Subject     string
	From        string
	Text        string
	HTML        string
	Attachments []Attachment
	// ReferenceDate anchors the interpretation of boleto due-date factors
	// (see brazil.DueDateFromFactor): pass the day the e-mail was received
	// so the result does not depend on when it is (re)processed. Zero
	// means today.
	ReferenceDate time.Time
}

// Result is everything Extract found. Its JSON form is the extractor's
// public output (webhooks, agent runs): snake_case, fields in this order,
// slices always present ([] rather than null).
type Result struct {
	Boletos        []Boleto         `json:"boletos"`
	InvalidBoletos []InvalidBoleto  `json:"invalid_boletos"`
	Pix            []Pix            `json:"pix"`
	InvalidPix     []InvalidPix     `json:"invalid_pix"`
	Documents      []Document       `json:"documents"`
	Amounts        []Amount         `json:"amounts"`
	Dates          []Date           `json:"dates"`
	Attachments    []AttachmentInfo `json:"attachments"`
	Warnings       []string         `json:"warnings"`
}

// SourceText is the plain text read from one part of the e-mail, as the
// findings' Sources name it; LLM providers send these to the model.
type SourceText struct {
	Source string
	Text   string
}

// Extract reads every part of in and returns the findings. It is
// deterministic for a given input (with ReferenceDate set) and never
// panics.
func Extract(in Input) Result {
	r, _ := Analyze(in)
	return r
}

// Analyze is Extract that also returns the plain text of each part it
// read, so callers that need both (the LLM providers) parse PDFs once.
func Analyze(in Input) (Result, []SourceText) {
	ref := in.ReferenceDate
	if ref.IsZero() {
		ref = time.Now()
	}
	texts, atts, warnings := readSources(in)
	c := newCollector(ref)
	for _, st := range texts {
		c.scan(st.Source, st.Text)
	}
	r := c.result()
	r.Attachments = atts
	r.Warnings = append(warnings, r.Warnings...)
	return r.normalized(), texts
}

// normalized replaces nil slices with empty ones so the JSON form has
// arrays, never null.
func (r Result) normalized() Result {
	if r.Boletos == nil {
		r.Boletos = []Boleto{}
	}
	if r.InvalidBoletos == nil {
		r.InvalidBoletos = []InvalidBoleto{}
	}
	if r.Pix == nil {
		r.Pix = []Pix{}
	}
	if r.InvalidPix == nil {
		r.InvalidPix = []InvalidPix{}
	}
	if r.Documents == nil {
		r.Documents = []Document{}
	}
	if r.Amounts == nil {
		r.Amounts = []Amount{}
	}
	if r.Dates == nil {
		r.Dates = []Date{}
	}
	if r.Attachments == nil {
		r.Attachments = []AttachmentInfo{}
	}
	if r.Warnings == nil {
		r.Warnings = []string{}
	}
	return r
}

// MarshalJSON keeps the empty-array guarantee even for a Result built by
// hand (the zero value included).
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	return json.Marshal(plain(r.normalized()))
}
