package portal

import (
	"crypto/hmac"
	"crypto/rand"
	"encoding/base64"
	"strings"
)

// The page's forms (accept an agreement, opt out) carry a token signed
// with the portal's key over the link, a random form id, the day the page
// was shown and what the form is for: a form of one link, day or purpose
// does not pass for another, and a cross-site page cannot make one (it
// would need the link itself; http.CrossOriginProtection refuses its
// POSTs besides). The form id makes a submission idempotent: the
// agreement accepted with one id is the answer to every later
// submission of it (dunning_portal_submissions).

// Form purposes.
const (
	formAgreement = "agreement"
	formOptOut    = "opt-out"
)

// newFormToken is a fresh form's token for purpose, on day.
func (s *Service) newFormToken(link, purpose, day string) string {
	var id [16]byte
	_, _ = rand.Read(id[:])
	fid := base64.RawURLEncoding.EncodeToString(id[:])
	return fid + "." + s.formMAC(link, fid, purpose, day)
}

func (s *Service) formMAC(link, fid, purpose, day string) string {
	return base64.RawURLEncoding.EncodeToString(s.Portal.Sign([]byte(strings.Join([]string{link, fid, purpose, day}, "|"))))
}

// checkFormToken returns the form id of a token made for link, purpose
// and day, or ok false.
func (s *Service) checkFormToken(token, link, purpose, day string) (fid string, ok bool) {
	fid, mac, found := strings.Cut(token, ".")
	if !found || fid == "" || len(fid) > 64 {
		return "", false
	}
	return fid, hmac.Equal([]byte(mac), []byte(s.formMAC(link, fid, purpose, day)))
}
