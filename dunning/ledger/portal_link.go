package ledger

import (
	"context"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/kobana/kobana-mcp/platform/store"
)

// The debtor page's links (docs/dunning.md "The debtor page";
// docs/security.md "The debtor page's links"). A link is the
// organization, the debtor, the debtor's link generation and the instant
// it stops working, signed with a key derived from the deployment
// secret, like the unsubscribe and Pix QR links: the signature is the
// authority, every replica accepts every link, and nothing is stored per
// link. What is stored per debtor (dunning_portal_links) is the
// generation — a rotation raises it, so every link made before stops
// working — and a revocation, which closes every link until the next
// rotation. A debtor archived opens nothing either.

// portalLinkVersion prefixes what a token signs.
const portalLinkVersion = "p1"

// PortalPath is the route of the debtor page on the product's listener.
const PortalPath = APIBase + "/portal/{token}"

// NewPortalLinks makes the links of the product at public URL base,
// signed with a key derived from secret (its own derivation: a Pix QR or
// unsubscribe token never verifies as a portal link); nil: a key of this
// process, valid until it stops (tests of the transport).
func NewPortalLinks(base string, secret []byte) *PortalLinks {
	var key []byte
	if len(secret) > 0 {
		var err error
		if key, err = hkdf.Key(sha256.New, secret, nil, "kobana-mcp dunning portal v1", 32); err != nil {
			panic(err) // only for lengths hkdf cannot produce; 32 it always can
		}
	} else {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	}
	return &PortalLinks{base: strings.TrimRight(base, "/"), key: key}
}

// PortalToken is what a verified link names.
type PortalToken struct {
	OrgID, DebtorID string
	Generation      int
	Expires         time.Time
}

// sign is the token of t.
func (l *PortalLinks) sign(t PortalToken) string {
	payload := strings.Join([]string{portalLinkVersion, t.OrgID, t.DebtorID, strconv.Itoa(t.Generation), strconv.FormatInt(t.Expires.Unix(), 10)}, "|")
	return base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." + base64.RawURLEncoding.EncodeToString(l.mac([]byte(payload)))
}

func (l *PortalLinks) mac(b []byte) []byte {
	m := hmac.New(sha256.New, l.key)
	m.Write(b)
	return m.Sum(nil)
}

// URL is the public link of t.
func (l *PortalLinks) URL(t PortalToken) string {
	return l.base + APIBase + "/portal/" + l.sign(t)
}

// Sign is a MAC of b under the portal's key, for what the page itself
// signs (its forms): a form token of one link cannot pass for another's.
func (l *PortalLinks) Sign(b []byte) []byte { return l.mac(append([]byte("form|"), b...)) }

// ErrPortalLink is every link that does not open the page: forged,
// changed, expired, of an older generation, revoked, of a debtor gone or
// archived. Callers answer all of them alike.
var ErrPortalLink = errors.New("dunning: portal link does not open the page")

// Parse verifies token's signature and expiry at now; the debtor's
// state is Check's.
func (l *PortalLinks) Parse(token string, now time.Time) (PortalToken, error) {
	p, sig, ok := strings.Cut(token, ".")
	if !ok {
		return PortalToken{}, ErrPortalLink
	}
	// Strict: one spelling per link (no ignored trailing bits).
	payload, err1 := base64.RawURLEncoding.Strict().DecodeString(p)
	got, err2 := base64.RawURLEncoding.Strict().DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(l.mac(payload), got) {
		return PortalToken{}, ErrPortalLink
	}
	parts := strings.Split(string(payload), "|")
	if len(parts) != 5 || parts[0] != portalLinkVersion {
		return PortalToken{}, ErrPortalLink
	}
	gen, err1 := strconv.Atoi(parts[3])
	exp, err2 := strconv.ParseInt(parts[4], 10, 64)
	if err1 != nil || err2 != nil {
		return PortalToken{}, ErrPortalLink
	}
	t := PortalToken{OrgID: parts[1], DebtorID: parts[2], Generation: gen, Expires: time.Unix(exp, 0).UTC()}
	if !now.Before(t.Expires) {
		return PortalToken{}, ErrPortalLink
	}
	return t, nil
}

// Open verifies token at now and the debtor it names in q: a debtor of
// the organization, not archived, whose link state has the token's
// generation and no revocation. Anything else is ErrPortalLink.
func (l *PortalLinks) Open(ctx context.Context, q store.Querier, token string, now time.Time) (PortalToken, Debtor, error) {
	t, err := l.Parse(token, now)
	if err != nil {
		return t, Debtor{}, err
	}
	d, err := GetDebtor(ctx, q, t.OrgID, t.DebtorID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (d.ID != t.DebtorID || d.ArchivedAt != nil)) {
		return t, Debtor{}, ErrPortalLink
	}
	if err != nil {
		return t, Debtor{}, err
	}
	st, err := LoadPortalLinkState(ctx, q, t.OrgID, t.DebtorID)
	if err != nil {
		return t, Debtor{}, err
	}
	if st.Revoked() || st.Generation != t.Generation {
		return t, Debtor{}, ErrPortalLink
	}
	return t, d, nil
}

// Current is the debtor's link made at now, valid for days, or ok false
// while its links are revoked. Every call makes a new link (a later
// expiry); all of one generation open the page until they expire.
func (l *PortalLinks) Current(ctx context.Context, q store.Querier, orgID, debtorID string, now time.Time, days int) (url string, expires time.Time, ok bool, err error) {
	st, err := LoadPortalLinkState(ctx, q, orgID, debtorID)
	if err != nil || st.Revoked() {
		return "", time.Time{}, false, err
	}
	if days <= 0 {
		days = DefaultPortalLinkDays
	}
	t := PortalToken{OrgID: orgID, DebtorID: debtorID, Generation: st.Generation, Expires: now.Add(time.Duration(days) * 24 * time.Hour).Truncate(time.Second).UTC()}
	return l.URL(t), t.Expires, true, nil
}

// PortalURL is debtor d's link to the debtor page made now, valid for
// st's portal_link_days: what {{debtor.portal_url}} renders; "" without
// the page (Portal nil) or while d's links are revoked.
func (s *Service) PortalURL(ctx context.Context, q store.Querier, st Settings, d Debtor) (string, error) {
	if s.Portal == nil {
		return "", nil
	}
	url, _, _, err := s.Portal.Current(ctx, q, d.OrganizationID, d.ID, s.Clock(), st.LinkDays)
	return url, err
}
