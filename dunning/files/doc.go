// Package files is Dunning's documents (statements, settlement and
// agreement terms as PDF) and exports (CSV of charges, debtors,
// agreements), drawn by jobs in their own queue, each organization held
// to its share of the workers and every drawing bounded in rows, bytes
// and time (document_limits.go). See docs/dunning.md "Code layout".
package files
