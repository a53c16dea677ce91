package extract

import "encoding/json"

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
