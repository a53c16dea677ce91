// Package extract is the Inbox's built-in offline extractor: it reads an
// e-mail (subject, bodies, attachments, text-based PDFs) and finds the
// payment data Kobana's customers forward to an inbox — boletos, Pix
// "copia e cola" codes, CNPJ/CPF numbers, BRL amounts and dates — with
// every check digit and CRC verified, so a finding is either provably
// well-formed or reported separately as invalid.
//
// The extractor finds; platform/brazil decodes. What is extraction stays
// here: scanning text for boleto-shaped digit chains, Pix codes,
// documents, amounts and dates, and the Sources bookkeeping. The rules of
// the codes themselves (FEBRABAN check digits and due-date factor, the
// BR Code's TLV and CRC, CPF and CNPJ) live in platform/brazil, shared
// with the products that read them too; a finding embeds the decoded
// brazil.Boleto or brazil.Pix.
//
// It needs no network and no model: it is the default processing
// "agent" (see inbox/agent.Extractor) and the source of hints handed to
// LLM providers. Extract never panics, whatever the input: malformed PDFs
// and oversized parts become warnings.
//
// Every finding carries Sources, the parts it was found in: "subject",
// "text", "html" or "attachment:<filename>".
package extract
