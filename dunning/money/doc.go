// Package money is Dunning's amount type: integer cents inside, a float in
// BRL on the wire.
//
// The product's wire convention (money is a float in BRL, rounded to
// cents by the server) means a client may send 10.005;
// the server rounds it half-up to 10.01 instead of rejecting it. Every
// amount the API accepts goes through FromFloat, FromNumber or
// ParseDecimal, so rounding and limits are decided here once:
//
//   - rounding is half-up to the cent, on the decimal the client wrote
//     (1.005 → 1.01 even though the nearest float64 is just below 1.005);
//   - negative amounts, NaN, ±Inf and amounts above MaxBRL are errors
//     (ErrNegative, ErrNotFinite, ErrTooLarge, ErrSyntax) that the API
//     reports as validation errors;
//   - Cents.Float64 gives back the wire float, exact for two decimals.
//
// Cents implements json.Marshaler and json.Unmarshaler with those rules,
// so a Cents field in a request or response struct speaks BRL floats.
package money
