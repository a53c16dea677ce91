package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kobana/kobana-mcp/platform/money"
)

// The body of a Pix webhook call, as the BCB's API Pix specifies it (the
// "API Pix" manual and OpenAPI of the Banco Central do Brasil, under
// Resolução BCB nº 1/2020, the Pix regulation; its webhook section: the
// PSP POSTs to {webhookUrl}/pix the body {"pix": [...]}, each item a Pix
// received with endToEndId, txid, valor, horario and infoPagador, among
// others this receiver does not need). Every item is checked before
// anything is kept: a call with one bad item is refused whole, and the
// PSP's retry (or its operator) sees why.

// maxPixWebhookBody bounds a webhook call's body: a batch of
// maxPixPerCall Pix with their optional parts (devolucoes,
// componentesValor) fits in far less.
const maxPixWebhookBody = 1 << 20

// maxPixPerCall bounds the Pix of one call.
const maxPixPerCall = 1000

// maxPayerNote bounds infoPagador: the API Pix allows 140 characters.
const maxPayerNote = 140

var (
	// pixEndToEndRe is the SPI's end-to-end id (Manual de Padrões para
	// Iniciação do Pix; API Pix "endToEndId"): "E", the ISPB of the
	// payer's institution (8 digits), the instant yyyyMMddHHmm (12
	// digits) and 11 letters or digits — 32 characters.
	pixEndToEndRe = regexp.MustCompile(`^E[0-9]{20}[A-Za-z0-9]{11}$`)
	// pixTxIDRe is a txid as the API Pix writes it (1 to 35 letters or
	// digits; a static code's txid is up to 25).
	pixTxIDRe = regexp.MustCompile(`^[A-Za-z0-9]{1,35}$`)
	// pixValorRe is the API Pix's "valor": a decimal string with exactly
	// two decimals, "\d{1,10}\.\d{2}".
	pixValorRe = regexp.MustCompile(`^[0-9]{1,10}\.[0-9]{2}$`)
)

// pixNotified is one Pix a PSP reported, checked.
type pixNotified struct {
	EndToEndID string
	// TxID is "" when the Pix carried none (a static code without one:
	// the BR Code's "***").
	TxID      string
	Amount    money.Cents
	PaidAt    time.Time
	PayerNote string
}

// pixWebhookItem is an item of the body as sent.
type pixWebhookItem struct {
	EndToEndID  *string `json:"endToEndId"`
	TxID        *string `json:"txid"`
	Valor       *string `json:"valor"`
	Horario     *string `json:"horario"`
	InfoPagador *string `json:"infoPagador"`
}

// errPixBody is a body that is not a Pix webhook call.
type errPixBody struct{ msg string }

func (e errPixBody) Error() string { return e.msg }

func pixBodyError(format string, args ...any) error {
	return errPixBody{fmt.Sprintf(format, args...)}
}

// parsePixWebhook reads a webhook call's body: JSON of valid UTF-8
// without NUL, an object whose "pix" is a non-empty array of at most
// maxPixPerCall items, each with an endToEndId of the SPI's form, a valor
// of two decimals above zero read into exact cents, a horario in RFC 3339
// at most paymentClockSkew after now, an optional txid and infoPagador.
// The first fault found is the error, naming the item.
func parsePixWebhook(body []byte, now time.Time) ([]pixNotified, error) {
	if bytes.IndexByte(body, 0) >= 0 {
		return nil, pixBodyError("the body contains a NUL byte")
	}
	if !utf8.Valid(body) {
		return nil, pixBodyError("the body is not valid UTF-8")
	}
	var in struct {
		Pix *[]json.RawMessage `json:"pix"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&in); err != nil {
		return nil, pixBodyError("the body is not a JSON object with a pix array: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, pixBodyError("the body has data after its JSON object")
	}
	if in.Pix == nil || len(*in.Pix) == 0 {
		return nil, pixBodyError(`the body has no "pix" array, or an empty one`)
	}
	if len(*in.Pix) > maxPixPerCall {
		return nil, pixBodyError("the body has %d pix; at most %d per call", len(*in.Pix), maxPixPerCall)
	}
	out := make([]pixNotified, 0, len(*in.Pix))
	seen := map[string]bool{}
	for i, raw := range *in.Pix {
		var it pixWebhookItem
		if err := json.Unmarshal(raw, &it); err != nil {
			return nil, pixBodyError("pix[%d]: %v", i, err)
		}
		p, err := checkPixItem(it, now)
		if err != nil {
			return nil, pixBodyError("pix[%d]: %v", i, err)
		}
		if seen[p.EndToEndID] {
			// The same Pix twice in one call: kept once, as a retry is.
			continue
		}
		seen[p.EndToEndID] = true
		out = append(out, p)
	}
	return out, nil
}

// checkPixItem checks one item.
func checkPixItem(it pixWebhookItem, now time.Time) (pixNotified, error) {
	var p pixNotified
	if it.EndToEndID == nil || !pixEndToEndRe.MatchString(*it.EndToEndID) {
		return p, errors.New(`endToEndId must be the SPI's 32-character id ("E", 8-digit ISPB, yyyyMMddHHmm, 11 letters or digits)`)
	}
	p.EndToEndID = *it.EndToEndID
	if it.TxID != nil && *it.TxID != "" && *it.TxID != "***" {
		if !pixTxIDRe.MatchString(*it.TxID) {
			return p, errors.New("txid must be 1 to 35 letters or digits")
		}
		p.TxID = *it.TxID
	}
	if it.Valor == nil {
		return p, errors.New(`valor is missing (a decimal string such as "123.45")`)
	}
	amount, err := pixValorCents(*it.Valor)
	if err != nil {
		return p, err
	}
	p.Amount = amount
	if it.Horario == nil {
		return p, errors.New("horario is missing (an RFC 3339 instant)")
	}
	paidAt, err := time.Parse(time.RFC3339Nano, *it.Horario)
	if err != nil {
		return p, fmt.Errorf("horario %.40q is not an RFC 3339 instant", *it.Horario)
	}
	if paidAt.After(now.Add(paymentClockSkew)) {
		return p, fmt.Errorf("horario %s is in the future", *it.Horario)
	}
	p.PaidAt = paidAt.UTC().Truncate(time.Microsecond)
	if it.InfoPagador != nil {
		if strings.ContainsRune(*it.InfoPagador, 0) {
			// Escaped as \u0000 it passes the body's check; no column
			// keeps it (PostgreSQL's TEXT refuses it).
			return p, errors.New("infoPagador contains a NUL character")
		}
		if utf8.RuneCountInString(*it.InfoPagador) > maxPayerNote {
			return p, fmt.Errorf("infoPagador is longer than %d characters", maxPayerNote)
		}
		p.PayerNote = *it.InfoPagador
	}
	return p, nil
}

// pixValorCents reads the API Pix's valor — digits, a point, exactly two
// decimals — into cents, exactly (no float is involved), above zero.
func pixValorCents(valor string) (money.Cents, error) {
	if !pixValorRe.MatchString(valor) {
		return 0, fmt.Errorf(`valor %.40q must be a decimal string with two decimals, such as "123.45"`, valor)
	}
	c, err := money.ParseDecimal(valor)
	if err != nil {
		return 0, fmt.Errorf("valor: %w", err)
	}
	if c <= 0 {
		return 0, fmt.Errorf("valor %s must be above zero", valor)
	}
	return c, nil
}
