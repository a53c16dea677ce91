// Package msgtemplate is the text of Dunning's messages to debtors: a
// template with named variables such as {{debtor.name}} and
// {{charge.updated_amount}}, checked when a plan step is saved (Validate)
// and filled in, Brazilian-formatted, when the step runs (Render).
//
// It is a deliberately tiny language: literal text and {{variable}},
// nothing else — no conditions, loops, functions or escapes — so a
// template written by a staff member can never run code, and every error
// can point at the exact line and column of the mistake. Values are
// inserted as they are: a debtor named "{{payment_link}}" is printed
// literally, never read as a template.
//
// Measure reports how a rendered message fits its channel, including how
// many SMS segments it costs.
package msgtemplate
