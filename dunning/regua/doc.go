// Package regua runs the collection plans: the step runner that finds the
// enrollments due, queues their messages or escalating actions, the daily
// sweep (charges turning overdue, lapsed approvals), and the step
// approvals a person decides. It is the top layer below the product's
// root, the only one that reaches both the notifications and the
// escalation. See docs/dunning.md "Code layout".
package regua
