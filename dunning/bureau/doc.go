// Package bureau is Dunning's boundary with the outside parties that
// change a person's record: the credit bureaus (Serasa, Boa Vista, SPC,
// Quod) and the notary that protests a debt. Each is reached over one
// HTTP protocol (Client), and Fake is a server speaking that protocol,
// used by the tests and by the embedded default so that a report can be
// made with nothing installed (docs/decisions.md "Dunning: credit
// bureaus, protest and agreements").
//
// The protocol:
//
//	POST   {base}/bureaus/{bureau}/reports            a report (negativação)
//	DELETE {base}/bureaus/{bureau}/reports/{protocol} its removal
//	POST   {base}/notary/protests                     a protest
//	POST   {base}/notary/protests/{protocol}/cancel   its cancellation (with the consent)
//
// Every request carries Idempotency-Key (our command's id): the provider
// answers a repeated key with its first answer, so a retry after a timeout
// never registers a debt twice. Answers are 200/201/202 with
// {"protocol", "status"} (status confirmed, pending, removed or canceled;
// pending means the outcome comes later by callback), 422 with
// {"error"} for a refusal, 5xx for "try again". A callback is a POST of
// {"reference", "protocol", "status", "reason"} to the callback_url the
// request gave, signed with X-Bureau-Signature: sha256=<hex HMAC-SHA256
// of the body with the shared secret>.
package bureau
