// Package latefee computes what a late charge costs: the fine (multa
// moratória), applied once when the charge is late, and default interest
// (juros de mora), simple interest on the open amount at one thirtieth
// of the monthly rate per calendar day late. Compute gives the updated
// amount for any date with its breakdown; Caps.Validate checks the
// percentages a creditor sets against the law and the organization's
// caps when a charge is saved.
//
// Everything is integer arithmetic on cents and on Percent (ten
// thousandths of a percent), with big-integer intermediates, so no
// amount the API accepts can overflow and every rounding is explicit:
// each component is rounded half-up to the cent once, from its exact
// value (interest is not rounded day by day).
package latefee
