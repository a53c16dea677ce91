// Package contact validates and normalises how Dunning reaches a debtor:
// Brazilian phone numbers in E.164 form (for SMS and WhatsApp) and e-mail
// addresses. Both are stored normalised, so the same debtor entered as
// "(11) 98765-4321" and "+55 11 98765 4321" is one contact, and a message
// is never sent to something that only looked like an address.
//
// CPF and CNPJ validation is not here: it belongs to platform/brazil.
package contact
