package ledger

import (
	"github.com/kobana/kobana-mcp/productkit/restkit"
	"github.com/kobana/kobana-mcp/rest"
)

// The charge operations' table: each names its handler, a method of the
// service in charges.go, payments.go or waivers.go, which read and write
// through charges_store.go and, for money and status, through the ledger
// (ledger.go). It sits above the files it names, so none of them depends
// on another's registration.

// RegisterCharges declares the charge operations and payments.
func RegisterCharges(api *rest.API, s *Service) {
	rest.Handle(api, rest.Operation{
		ID: "dunning_charges_list", Method: "GET", Path: "/charges", Tags: []string{"charges"},
		Title:    "List charges",
		Summary:  "Lists the organization's charges a page at a time, by due date unless sort_by says otherwise, each with its updated_amount for today; filters by status (a comma list), debtor, due dates, collection plan and text.",
		Requires: ChargesRead, Annotations: restkit.ReadOnly(),
	}, s.chargesList)
	rest.Handle(api, rest.Operation{
		ID: "dunning_charges_get", Method: "GET", Path: "/charges/{id}", Tags: []string{"charges"},
		Title:    "Get a charge",
		Summary:  "Gets one charge by id or external_id with its updated_amount (open amount plus fine and interest, computed by the server for today or the date in on), its debtor, payments, enrollments in collection plans and last notifications.",
		Requires: ChargesRead, Annotations: restkit.ReadOnly(),
	}, s.chargesGet)
	rest.Handle(api, rest.Operation{
		ID: "dunning_charges_create", Method: "POST", Path: "/charges", Tags: []string{"charges"},
		Title:    "Create a charge",
		Summary:  "Creates a charge (título) owed by a debtor: amount in BRL, due date, fine and monthly interest within the law's and the organization's caps. It starts pending (overdue when its due date and grace are already past) and emits dunning.charge.created.",
		Requires: chargesWrite, Annotations: restkit.Write(false),
	}, s.chargesCreate)
	rest.Handle(api, rest.Operation{
		ID: "dunning_charges_update", Method: "PATCH", Path: "/charges/{id}", Tags: []string{"charges"},
		Title:    "Change a charge",
		Summary:  "Changes a pending or overdue charge's amount, due date, description, fine, interest, references, tags or custom data; never its status (payments, cancel and the scheduler change it).",
		Requires: chargesWrite, Annotations: restkit.Write(false),
	}, s.chargesUpdate)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "dunning_charges_cancel", Method: "POST", Path: "/charges/{id}/cancel", Tags: []string{"charges"},
		Title: "Cancel or write off a charge",
		Summary: "Cancels a charge (the creditor withdraws it; dunning.charge.canceled is emitted) or, with write_off, writes an overdue one off as a loss. Either way collection stops. " +
			"A paid charge cannot be canceled; repeating the same operation changes nothing.",
		Description: "Destructive: a canceled or written-off charge is final.",
		Requires:    chargesManage, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, s.describeChargesCancel, s.chargesCancel)
	rest.HandleConfirmed(api, rest.Operation{
		ID: "dunning_charges_archive", Method: "POST", Path: "/charges/{id}/archive", Tags: []string{"charges"},
		Title:       "Archive a charge",
		Summary:     "Archives a charge whatever its status: it leaves the default listing and the counts, and collection of it stops. Archiving an archived charge changes nothing.",
		Description: "Destructive: its collection plans stop for good.",
		Requires:    chargesManage, Annotations: restkit.Destructive(true), ConsumesConfirmation: true,
	}, s.describeCharge("Archive", "Its collection plans stop and it leaves the listings."), s.chargesArchive)
	registerPayments(api, s)
	registerWaivers(api, s)
}
