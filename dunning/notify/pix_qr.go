package notify

import (
	"net/http"

	"github.com/kobana/kobana-mcp/dunning/ledger"
	"github.com/kobana/kobana-mcp/platform/brazil"
)

// MountPixQR serves the QR codes of {{pix.qr_url}} (ledger.PixQRPath): the
// PNG of the charge's Pix code on the day the link names, computed again
// from the charge, its settings and the creditor's key. The signed link
// is the authority, as with the unsubscribe links: no token or login, and
// a link that does not verify, a charge gone or out of collection (paid,
// canceled), or a creditor without a Pix key answer 404 with nothing
// about the charge.
func (n *Notifier) MountPixQR(mux *http.ServeMux) {
	mux.HandleFunc("GET "+ledger.PixQRPath, n.servePixQR)
}

// servePixQR answers one QR link.
func (n *Notifier) servePixQR(w http.ResponseWriter, r *http.Request) {
	if n.PixQR == nil {
		http.NotFound(w, r)
		return
	}
	orgID, chargeID, day, err := n.PixQR.ParseQRToken(r.PathValue("token"))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	ctx := r.Context()
	c, err := ledger.GetCharge(ctx, n.DB, orgID, chargeID)
	if err != nil || c.ID != chargeID || !c.Status.Collectible() || c.ArchivedAt != nil {
		http.NotFound(w, r)
		return
	}
	st, err := ledger.LoadSettings(ctx, n.DB, orgID)
	if err != nil {
		http.Error(w, "try again", http.StatusInternalServerError)
		return
	}
	rcv, ok, err := ledger.LoadPixReceiver(ctx, n.DB, orgID)
	if err != nil || !ok {
		http.NotFound(w, r)
		return
	}
	b, err := ledger.ChargeBreakdown(c, st, day)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	code, ok, err := ledger.ChargePixOfDay(rcv, c, b, day, nil)
	if err != nil || !ok {
		http.NotFound(w, r)
		return
	}
	png, err := brazil.PixQRPNG(code.Payload)
	if err != nil {
		http.Error(w, "try again", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "private, no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(png)
}
