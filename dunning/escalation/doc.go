// Package escalation is what Dunning does when reminders are not enough:
// credit-bureau reports and their removal (CDC art. 43), protests at the
// notary, and payment agreements with their installment
// math and monitor. Outbound calls to a bureau run as commands through
// the job queue (commands.go, command_worker.go). See docs/dunning.md
// "Code layout".
package escalation
