// Package messaging is how products reach people outside the API: one
// small interface, Sender, that every channel's sender satisfies, so a
// product holds a map[Channel]Sender and its outbox worker does not care
// whether a reminder leaves as an e-mail, an SMS or a WhatsApp message.
//
// # Vocabulary
//
// A Message goes to one recipient on one Channel (Email, SMS, WhatsApp).
// Send answers a Receipt (the provider's id for the message, which later
// status callbacks name) or an *Error that says whether trying again can
// help:
//
//   - Permanent: this message will never go (the recipient does not
//     exist, unsubscribed, cannot receive the channel, the content is
//     refused). Mark it failed; perhaps try another channel.
//   - otherwise temporary: try again later (after RetryAfter when the
//     provider said). Misconfigured marks the temporary failures only an
//     operator can fix (credentials, certificates, sender numbers), and
//     MaybeSent those after which the provider may have the message
//     anyway, so a retry may deliver twice.
//
// The products keep their own outbox (the message row, its attempts and
// statuses) in their database; this package keeps no state.
//
// # Providers
//
// E-mail is package platform/mail (SMTP), whose Client.Sender is a
// Sender. SMS and WhatsApp go through Twilio's Messages API (Twilio, one
// Sender for both channels), with delivery statuses arriving as signed
// callbacks (VerifyRequest, VerifyCallback, ParseCallback).
package messaging
