package mail

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"regexp"
	"strconv"
	"strings"

	"github.com/kobana/kobana-mcp/platform/messaging"
)

// enhancedCode is an RFC 3463 enhanced status code at the start of a
// reply's text ("5.1.1 No such user").
var enhancedCode = regexp.MustCompile(`^([245]\.[0-9]{1,3}\.[0-9]{1,3})(?:\s+|$)`)

// hasReply reports whether err is an SMTP reply (the relay answered).
func hasReply(err error) bool {
	var tp *textproto.Error
	return errors.As(err, &tp)
}

// classify turns a failed send into a *messaging.Error. The rules, from
// the SMTP reply codes of RFC 5321 §4.2.1 and from what each step says:
//
//   - A 5xx to RCPT TO, to DATA or to the message itself is permanent:
//     the recipient does not exist or the content is refused.
//   - A 5xx before that (greeting, EHLO, STARTTLS, AUTH, MAIL FROM) is
//     about us — credentials refused, sender not allowed — so it is
//     temporary and Misconfigured, as are TLS and certificate failures
//     and a relay that does not offer the STARTTLS we require.
//   - A 4xx is temporary, whatever the step.
//   - No reply (refused connection, reset, timeout, cancelled context) is
//     temporary; after the whole message was sent it is also MaybeSent.
func (c *Client) classify(ctx context.Context, at stage, err error) *messaging.Error {
	e := &messaging.Error{Channel: messaging.Email, Provider: Provider, Err: err}
	if ctxErr := ctx.Err(); ctxErr != nil {
		// The context closed the connection; what broke is a consequence.
		e.Err = ctxErr
		e.MaybeSent = at == stageDataEnd
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			e.Message = fmt.Sprintf("%s: not done within %s", at, c.cfg.SendTimeout)
		} else {
			e.Message = at.String() + ": canceled"
		}
		return e
	}
	var tp *textproto.Error
	if errors.As(err, &tp) {
		e.Status = tp.Code
		e.Message = tp.Msg
		if m := enhancedCode.FindStringSubmatch(tp.Msg); m != nil {
			e.Code = m[1]
			e.Message = strings.TrimSpace(tp.Msg[len(m[0]):])
		}
		e.Message = at.String() + ": " + e.Message
		if tp.Code >= 500 && tp.Code < 600 {
			switch at {
			case stageRcptTo, stageData, stageDataEnd:
				e.Permanent = true
			default:
				e.Misconfigured = true
			}
		}
		return e
	}
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		e.Message = fmt.Sprintf("%s: no answer within %s", at, c.cfg.Timeout)
		e.MaybeSent = at == stageDataEnd
	case isTLSFailure(err):
		e.Misconfigured = true
		e.Message = at.String() + ": TLS: " + err.Error()
	case at == stageConnect && !isNetwork(err):
		// Before the transaction, an error that is neither a reply nor
		// the network is a mismatch between our settings and the relay:
		// STARTTLS required but not offered, AUTH or PLAIN not offered,
		// PLAIN refused over a connection without TLS.
		e.Misconfigured = true
		e.Message = at.String() + ": " + err.Error()
	default:
		e.Message = at.String() + ": " + err.Error()
		e.MaybeSent = at == stageDataEnd
	}
	return e
}

// isNetwork reports whether err is the connection failing (refused,
// reset, closed, cut short) rather than a decision of either side.
func isNetwork(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}

func isTLSFailure(err error) bool {
	var (
		verify  *tls.CertificateVerificationError
		unknown x509.UnknownAuthorityError
		host    x509.HostnameError
		invalid x509.CertificateInvalidError
		alert   tls.AlertError
		record  tls.RecordHeaderError
	)
	return errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &host) ||
		errors.As(err, &invalid) || errors.As(err, &alert) || errors.As(err, &record)
}

func (s stage) String() string {
	switch s {
	case stageConnect:
		return "connecting"
	case stageMailFrom:
		return "MAIL FROM"
	case stageRcptTo:
		return "RCPT TO"
	case stageData:
		return "DATA"
	case stageDataEnd:
		return "end of DATA"
	}
	return "stage " + strconv.Itoa(int(s))
}
