package ledger

import (
	"regexp"
	"strings"
	"testing"

	"github.com/kobana/kobana-mcp/platform/bankcalendar"
	"github.com/kobana/kobana-mcp/platform/store"
)

// TestPixTxID: every charge id gives a txid of exactly 25 letters and
// digits starting KB, the same each time, different per charge, that
// gives the charge back; ids that are not UUIDs and foreign txids are
// refused.
func TestPixTxID(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`^KB[A-Za-z0-9]{23}$`)
	seen := map[string]string{}
	ids := []string{"00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"}
	for range 2000 {
		ids = append(ids, store.NewID())
	}
	for _, id := range ids {
		tx, err := PixTxID(id)
		if err != nil || !re.MatchString(tx) {
			t.Fatalf("%s: %q %v", id, tx, err)
		}
		if again, _ := PixTxID(id); again != tx {
			t.Fatalf("%s: %s then %s", id, tx, again)
		}
		if other, ok := seen[tx]; ok {
			t.Fatalf("%s and %s share txid %s", id, other, tx)
		}
		seen[tx] = id
		back, err := ChargeIDOfPixTxID(tx)
		if err != nil || back != id {
			t.Fatalf("%s → %s → %s %v", id, tx, back, err)
		}
	}
	if tx, _ := PixTxID(ids[0]); tx != "KB"+strings.Repeat("0", 23) {
		t.Errorf("zero UUID: %s", tx)
	}
	if _, err := PixTxID("not-a-uuid"); err == nil {
		t.Error("a non-UUID id got a txid")
	}
	for _, bad := range []string{"", "***", "KB0000000000000000000000", "XB00000000000000000000000", "KB0000000000000000000000-", "KBzzzzzzzzzzzzzzzzzzzzzzz"} {
		if _, err := ChargeIDOfPixTxID(bad); err == nil {
			t.Errorf("%q read as a charge's txid", bad)
		}
	}
}

// TestPixLinks: a QR link verifies to what it names, under the same
// secret on another replica; a changed or foreign token does not.
func TestPixLinks(t *testing.T) {
	t.Parallel()
	a, b := NewPixLinks("https://dunning.test/", []byte("secret")), NewPixLinks("https://other.test", []byte("secret"))
	day := bankcalendar.NewDate(2026, 3, 10)
	u := a.QRURL("org-1", "charge-1", day)
	if !strings.HasPrefix(u, "https://dunning.test/v1/pix-qr/") {
		t.Fatalf("url %s", u)
	}
	token := u[strings.LastIndex(u, "/")+1:]
	org, ch, d, err := b.ParseQRToken(token)
	if err != nil || org != "org-1" || ch != "charge-1" || d != day {
		t.Fatalf("parse: %s %s %v %v", org, ch, d, err)
	}
	other := a.QRURL("org-1", "charge-1", bankcalendar.NewDate(2026, 3, 11))
	payload, _, _ := strings.Cut(other[strings.LastIndex(other, "/")+1:], ".")
	_, sig, _ := strings.Cut(token, ".")
	for _, bad := range []string{"", token + "x", payload + "." + sig, "nodot"} {
		if _, _, _, err := a.ParseQRToken(bad); err == nil {
			t.Errorf("%q verified", bad)
		}
	}
	if _, _, _, err := NewPixLinks("https://dunning.test", []byte("another secret")).ParseQRToken(token); err == nil {
		t.Error("a token verified under another secret")
	}
}
