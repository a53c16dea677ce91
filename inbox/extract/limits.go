package extract

// maxSourceBytes caps the text searched per part; longer text is cut
// (with a warning). Payment data sits near the top of any document. A
// variable only so tests can lower it.
var maxSourceBytes = 1 << 20

// PDF reading limits: a boleto or invoice fits in a few pages; anything
// beyond is not read (and said so in a warning).
const (
	maxPDFBytes = 20 << 20
	maxPDFPages = 30
)
