package ledger

import (
	"testing"
	"time"
)

// --dunning-send-rates reads each provider's rate as the time between two
// of its messages, and refuses an unknown provider or a malformed rate.
func TestParseSendRates(t *testing.T) {
	t.Parallel()
	got, err := ParseSendRates(" twilio=10-S, smtp=120-M ")
	if err != nil || len(got) != 2 || got[ProviderTwilio] != 100*time.Millisecond || got[ProviderSMTP] != 500*time.Millisecond {
		t.Fatalf("ParseSendRates = %v, %v", got, err)
	}
	if got, err := ParseSendRates(""); err != nil || got != nil {
		t.Errorf("empty: %v, %v", got, err)
	}
	for _, bad := range []string{"outbox=1-S", "twilio", "twilio=ten", "twilio=0-S", "sms=5-S"} {
		if _, err := ParseSendRates(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
