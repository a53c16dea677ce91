// Package address is the one e-mail address parser of every product:
// Dunning's debtor contacts, the accounts' sign-in names, Kadu's result
// destinations and the mail sender's last check before SMTP all call
// ParseEmail, so an address one of them accepts is never refused — or,
// worse, sent with an injected header — by another.
//
// An address is one plain addr-spec, local@domain: no display name, no
// comments, no second address, no control character (CR, LF and NUL are
// how headers are injected), an internationalised domain stored in its
// ASCII (IDNA) form, and the lengths of RFC 5321 §4.5.3.1.
package address
