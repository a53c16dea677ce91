package lifecycle

// CommandStatus is where a command sent to an outside party stands: a
// credit-bureau report (negativação) or a notary protest. Both follow the
// command pattern of docs/decisions.md "Dunning: credit bureaus, protest
// and agreements": requested, then the provider's answer, then the way
// back out.
type CommandStatus string

// Command statuses.
const (
	// CommandRequested: stored and on its way to the provider.
	CommandRequested CommandStatus = "requested"
	// CommandConfirmed: the provider registered it.
	CommandConfirmed CommandStatus = "confirmed"
	// CommandFailed: the provider refused it.
	CommandFailed CommandStatus = "failed"
	// CommandError: the provider could not be reached after every retry;
	// a person decides (report again, or not).
	CommandError CommandStatus = "error"
	// ReportRemovalRequested, ReportRemoved: a report's removal.
	ReportRemovalRequested CommandStatus = "removal_requested"
	ReportRemoved          CommandStatus = "removed"
	// ProtestCancelRequested, ProtestCanceled: a protest's cancellation.
	ProtestCancelRequested CommandStatus = "cancel_requested"
	ProtestCanceled        CommandStatus = "canceled"
)

// CreditReports is the credit-bureau report transition table:
//
//	requested         → confirmed, failed, error, removal_requested
//	confirmed         → removal_requested
//	removal_requested → removed
//	failed, error, removed: final
//
// A removal may be asked for before the bureau confirmed (the charge was
// paid meanwhile): the worker then withdraws what it sent.
var CreditReports = newMachine("credit report",
	[]CommandStatus{CommandRequested, CommandConfirmed, CommandFailed, CommandError, ReportRemovalRequested, ReportRemoved},
	map[CommandStatus][]CommandStatus{
		CommandRequested:       {CommandConfirmed, CommandFailed, CommandError, ReportRemovalRequested},
		CommandConfirmed:       {ReportRemovalRequested},
		ReportRemovalRequested: {ReportRemoved},
	})

// Protests is the notary-protest transition table:
//
//	requested        → confirmed, failed, error, cancel_requested
//	confirmed        → cancel_requested
//	cancel_requested → canceled
//	failed, error, canceled: final
var Protests = newMachine("protest",
	[]CommandStatus{CommandRequested, CommandConfirmed, CommandFailed, CommandError, ProtestCancelRequested, ProtestCanceled},
	map[CommandStatus][]CommandStatus{
		CommandRequested:       {CommandConfirmed, CommandFailed, CommandError, ProtestCancelRequested},
		CommandConfirmed:       {ProtestCancelRequested},
		ProtestCancelRequested: {ProtestCanceled},
	})

// AgreementStatus is where a renegotiation (acordo) stands.
type AgreementStatus string

// Agreement statuses.
const (
	AgreementProposed AgreementStatus = "proposed"
	AgreementAccepted AgreementStatus = "accepted"
	AgreementActive   AgreementStatus = "active"
	AgreementSettled  AgreementStatus = "settled"
	AgreementBroken   AgreementStatus = "broken"
	AgreementCanceled AgreementStatus = "canceled"
)

// Agreements is the agreement transition table:
//
//	proposed → accepted, canceled
//	accepted → active (a first installment paid), settled, broken, canceled
//	active   → settled, broken, canceled
//	settled, broken, canceled: final
var Agreements = newMachine("agreement",
	[]AgreementStatus{AgreementProposed, AgreementAccepted, AgreementActive, AgreementSettled, AgreementBroken, AgreementCanceled},
	map[AgreementStatus][]AgreementStatus{
		AgreementProposed: {AgreementAccepted, AgreementCanceled},
		AgreementAccepted: {AgreementActive, AgreementSettled, AgreementBroken, AgreementCanceled},
		AgreementActive:   {AgreementSettled, AgreementBroken, AgreementCanceled},
	})
