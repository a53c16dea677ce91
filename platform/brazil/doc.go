// Package brazil holds the Brazilian codes every product reads: boleto
// lines and barcodes (FEBRABAN), Pix BR Codes (Banco Central) and CPF and
// CNPJ numbers (Receita Federal), each decoded or validated with every
// check digit and CRC verified.
//
// It is a foundation rather than part of one product because several
// need the same rules: the Inbox reads boletos and Pix codes out of
// forwarded e-mails, Dunning reads a charge's barcode or digitable line
// and validates and formats its debtors' CPF and CNPJ. Products never
// import each other (docs/architecture.md), so the one copy of these
// rules lives here, below them all; a fix to a check digit or to the
// due-date factor's rollover reaches every product at once.
//
// The package knows nothing of where a code came from: finding codes in
// a text (an e-mail, a PDF) is the Inbox extractor's business, which
// builds on DecodeBoleto, ReadPix and the document helpers. It needs no
// network and keeps no state; every function is safe for concurrent use.
//
//   - Boletos: DecodeBoleto takes a bank boleto's 47-digit line, an
//     arrecadação slip's 48-digit line or either's 44-digit barcode, in any
//     formatting, and returns the decoded Boleto or says which check
//     digit failed. DueDateFromFactor and FactorForDate convert the
//     four-digit due-date factor, which FEBRABAN restarted at 1000 on
//     2025-02-22.
//   - Pix: DecodePix validates a "copia e cola" payload (EMV TLV
//     structure, CRC-16 of field 63, mandatory fields) and returns the
//     receiver's key and its type, the amount and the txid.
//   - Documents: ValidCPF and ValidCNPJ (the 2026 alphanumeric CNPJ
//     included), NormalizeDocument, DocumentKind and FormatDocument.
//
// Package braziltest builds valid codes for tests by an independent
// implementation of the same layouts.
package brazil
