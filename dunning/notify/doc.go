// Package notify is Dunning's contact with debtors: the notification log,
// the Notifier that renders a step's message and queues it, the send job
// (one provider call per notification, recorded through platform/jobs'
// Call so a crash never sends twice), opt-outs and unsubscribe links, and
// the providers' delivery callbacks. It sits on the collection plans and
// the ledger. See docs/dunning.md "Code layout".
package notify
