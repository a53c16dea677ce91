package extract

import "time"

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

// SourceText is the plain text read from one part of the e-mail, as the
// findings' Sources name it; LLM providers send these to the model.
type SourceText struct {
	Source string
	Text   string
}
