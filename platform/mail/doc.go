// Package mail sends e-mail through an SMTP relay (the company's own, or
// a provider's submission service such as Amazon SES or SendGrid), on
// github.com/wneessen/go-mail. Dunning sends reminders with it and Kadu
// execution results; both reach it directly (Client.Send) or as the Email
// channel's messaging.Sender (Client.Sender).
//
// # Sending
//
// One Send is one connection: connect, EHLO, TLS as the Config's policy
// says (STARTTLS required by default; opportunistic, implicit TLS, or
// none to a relay on loopback), AUTH PLAIN when a username is set, one
// transaction for one recipient, QUIT. Nothing is pooled: a job sends a
// message now and then, and a fresh connection cannot carry the state of
// a broken one. Config.Timeout bounds each step and Config.SendTimeout
// the whole; the context cancels it at any point.
//
// The message carries a Message-ID the caller chooses (its outbox row),
// the same on every retry, and, for bulk mail, RFC 8058 one-click
// unsubscribe headers. DKIM signing is left to the relay.
//
// # Failures
//
// Every error is a *messaging.Error. A 5xx reply to the recipient or to
// the message is Permanent (do not retry: the address does not exist, the
// content is refused); 4xx replies, network failures and timeouts are
// temporary. Replies and failures before the transaction that point at
// our settings (credentials, certificate, STARTTLS not offered, sender
// refused) are temporary and Misconfigured. A failure after the whole
// message was sent, before the relay's answer, is MaybeSent: the relay
// may have queued it, and a retry can deliver a second copy with the same
// Message-ID.
package mail
