// Package agent runs the Inbox's processing agents: a Provider turns an
// e-mail plus the agent's system message into a JSON output and the usage
// to meter (tokens, cost). Extractor is the free, offline default (the
// inbox/extract findings); OpenAI calls any OpenAI-compatible
// chat-completions API, sending the e-mail strictly as data together with
// the extractor's findings as hints.
//
// Errors are *Error values: the message never contains the API key, and
// IsRetryable says whether running the same request later may succeed
// (rate limits, provider outages, timeouts).
package agent
