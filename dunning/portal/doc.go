// Package portal is Dunning's debtor page (docs/dunning.md "The debtor
// page"): at a signed link per debtor ({{debtor.portal_url}},
// dunning/ledger's portal_link.go) the debtor sees the creditor's
// identity (CDC, Lei 8.078/1990 art. 42-A), each open charge with its
// amounts of today, its Pix code and boleto line, the payments made, the
// statement PDF, opts out of a channel or of the page, and, when the
// creditor allows it, accepts an agreement alone. It is the layer above
// the escalation (dunning/escalation), whose agreements it makes through
// their one write, and it declares the link's operations
// (dunning_debtors_portal_link, dunning_debtors_portal_link_reset).
package portal
