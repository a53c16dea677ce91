// Package money is the products' amount type: integer cents of BRL inside,
// so sums, costs, fines and interest add up exactly, and a float in reais
// on the wire, rounded to the cent by the server (docs/decisions.md "The
// rules we build on", API conventions). It is a foundation: every product
// speaks amounts through it, so two products never round or print the same
// amount differently.
//
// The wire convention means a client may send 10.005; the server rounds it
// half-up to 10.01 instead of rejecting it. Every amount an API accepts
// goes through FromFloat, FromFloatAtMost, FromNumber or ParseDecimal, so
// rounding and limits are decided here once:
//
//   - rounding is half-up to the cent, on the decimal the client wrote
//     (1.005 → 1.01 even though the nearest float64 is just below 1.005);
//   - negative amounts, NaN, ±Inf and amounts above MaxBRL (or the lower
//     bound a product gives FromFloatAtMost) are errors (ErrNegative,
//     ErrNotFinite, ErrTooLarge, ErrSyntax) that the API reports as
//     validation errors;
//   - Cents.Float64 gives back the wire float, exact for two decimals;
//   - Cents.String prints it for people, "R$ 1.234,56".
//
// Cents implements json.Marshaler and json.Unmarshaler with those rules,
// so a Cents field in a request or response struct speaks BRL floats.
package money
