package ledger

import (
	"context"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/google/uuid"

	"github.com/kobana/kobana-mcp/dunning/latefee"
	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/brazil"
	"github.com/kobana/kobana-mcp/platform/money"
	"github.com/kobana/kobana-mcp/platform/store"
)

// A charge's Pix code of a day (docs/decisions.md "Dunning: Pix BR
// Code"): a static BR Code paying the creditor's key the charge's updated
// amount on that day (open amount, fine and interest, ChargeBreakdown),
// with a txid derived from the charge, so a payment received can be
// matched to it. The rules of the code are the Banco Central's (Manual de
// Padrões para Iniciação do Pix; Resolução BCB nº 1/2020).

// pixTxIDPrefix starts every txid Dunning writes.
const pixTxIDPrefix = "KB"

// pixTxIDDigits are the base-62 digits of a txid, in their value order.
const pixTxIDDigits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// PixTxID is the txid of a charge's Pix codes: "KB" and the charge's
// UUID (128 bits) written in base 62 over 23 characters, zero-padded —
// exactly 25 characters of [A-Za-z0-9], the BR Code's longest txid. It is
// deterministic (every code of the charge, every day, carries it) and
// one-to-one (ChargeIDOfPixTxID gives the charge back), so a received
// payment names its charge. A charge id that is not a UUID is an error.
func PixTxID(chargeID string) (string, error) {
	u, err := uuid.Parse(chargeID)
	if err != nil {
		return "", fmt.Errorf("dunning: pix txid of %q: %w", chargeID, err)
	}
	n := new(big.Int).SetBytes(u[:])
	var digits [23]byte
	base := big.NewInt(62)
	mod := new(big.Int)
	for i := len(digits) - 1; i >= 0; i-- {
		n.DivMod(n, base, mod)
		digits[i] = pixTxIDDigits[mod.Int64()]
	}
	return pixTxIDPrefix + string(digits[:]), nil
}

// ChargeIDOfPixTxID is the charge a txid of PixTxID names, or an error
// for a txid Dunning did not write.
func ChargeIDOfPixTxID(txid string) (string, error) {
	if len(txid) != 25 || !strings.HasPrefix(txid, pixTxIDPrefix) {
		return "", errors.New("dunning: not a Dunning pix txid")
	}
	n := new(big.Int)
	for _, r := range txid[2:] {
		i := strings.IndexRune(pixTxIDDigits, r)
		if i < 0 {
			return "", errors.New("dunning: not a Dunning pix txid")
		}
		n.Mul(n, big.NewInt(62)).Add(n, big.NewInt(int64(i)))
	}
	if n.BitLen() > 128 {
		return "", errors.New("dunning: not a Dunning pix txid")
	}
	var u uuid.UUID
	n.FillBytes(u[:])
	return u.String(), nil
}

// PixOfDay is a charge's Pix code on a day.
type PixOfDay struct {
	// Payload is the "copia e cola" BR Code.
	Payload string `json:"payload"`
	// Amount is the charge's updated amount on On, which the code asks.
	Amount money.Cents       `json:"amount"`
	TxID   string            `json:"txid"`
	On     bankcalendar.Date `json:"on"`
	// QRURL serves the code's QR as a PNG, signed (PixLinks).
	QRURL string `json:"qr_url"`
}

// LoadPixReceiver is the organization's Pix receiver; ok is false when
// its creditor has no Pix key (or none set at all).
func LoadPixReceiver(ctx context.Context, q store.Querier, orgID string) (PixReceiver, bool, error) {
	c, err := LoadCreditor(ctx, q, orgID)
	if errors.Is(err, store.ErrNotFound) {
		return PixReceiver{}, false, nil
	}
	if err != nil {
		return PixReceiver{}, false, err
	}
	r, ok := c.PixReceiver()
	return r, ok, nil
}

// ChargePixOfDay is the Pix code of charge c on day, whose breakdown then
// is b: r's key, c's updated amount, PixTxID's txid, and the QR link of
// links (none when links is nil). A charge with nothing to pay has no
// code: ok is false.
func ChargePixOfDay(r PixReceiver, c Charge, b latefee.Breakdown, day bankcalendar.Date, links *PixLinks) (PixOfDay, bool, error) {
	if b.Updated <= 0 {
		return PixOfDay{}, false, nil
	}
	txid, err := PixTxID(c.ID)
	if err != nil {
		return PixOfDay{}, false, err
	}
	payload, err := brazil.EncodePix(brazil.PixCode{Key: r.Key, MerchantName: r.MerchantName, MerchantCity: r.MerchantCity,
		AmountCents: int64(b.Updated), TxID: txid})
	if err != nil {
		return PixOfDay{}, false, err
	}
	p := PixOfDay{Payload: payload, Amount: b.Updated, TxID: txid, On: day}
	if links != nil {
		p.QRURL = links.QRURL(c.OrganizationID, c.ID, day)
	}
	return p, true, nil
}

// PixLinks makes and checks the public links of charges' QR codes: the
// organization, the charge and the day signed with a key derived from the
// deployment secret, like the unsubscribe links (dunning/notify's
// unsubscribe.go). Every replica accepts every link, nothing is stored
// per message, and without the signature the route shows nothing.
type PixLinks struct {
	base string
	key  []byte
}

// pixLinkVersion prefixes what a token signs.
const pixLinkVersion = "q1"

// PixQRPath is the route of the QR codes on the product's listener.
const PixQRPath = APIBase + "/pix-qr/{token}"

// NewPixLinks makes the links of the product at public URL base, signed
// with a key derived from secret (nil: a key of this process, valid until
// it stops — tests of the transport).
func NewPixLinks(base string, secret []byte) *PixLinks {
	var key []byte
	if len(secret) > 0 {
		var err error
		if key, err = hkdf.Key(sha256.New, secret, nil, "kobana-mcp dunning pix qr v1", 32); err != nil {
			panic(err) // only for lengths hkdf cannot produce; 32 it always can
		}
	} else {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	}
	return &PixLinks{base: strings.TrimRight(base, "/"), key: key}
}

// QRURL is the public link of charge's QR code on day.
func (l *PixLinks) QRURL(orgID, chargeID string, day bankcalendar.Date) string {
	payload := pixLinkVersion + "|" + orgID + "|" + chargeID + "|" + day.String()
	mac := hmac.New(sha256.New, l.key)
	mac.Write([]byte(payload))
	token := base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
	return l.base + APIBase + "/pix-qr/" + token
}

// errBadPixToken is a QR link that does not verify.
var errBadPixToken = errors.New("dunning: pix QR link does not verify")

// ParseQRToken verifies the token of a QR link and returns what it names.
func (l *PixLinks) ParseQRToken(token string) (orgID, chargeID string, day bankcalendar.Date, err error) {
	p, sig, ok := strings.Cut(token, ".")
	if !ok {
		return "", "", bankcalendar.Date{}, errBadPixToken
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return "", "", bankcalendar.Date{}, errBadPixToken
	}
	mac := hmac.New(sha256.New, l.key)
	mac.Write(payload)
	if !hmac.Equal(mac.Sum(nil), got) {
		return "", "", bankcalendar.Date{}, errBadPixToken
	}
	parts := strings.Split(string(payload), "|")
	if len(parts) != 4 || parts[0] != pixLinkVersion {
		return "", "", bankcalendar.Date{}, errBadPixToken
	}
	if day, err = bankcalendar.ParseDate(parts[3]); err != nil {
		return "", "", bankcalendar.Date{}, errBadPixToken
	}
	return parts[1], parts[2], day, nil
}
