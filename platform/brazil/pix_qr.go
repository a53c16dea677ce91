package brazil

import (
	"fmt"

	"rsc.io/qr"
)

// PixQRPNG is the QR code of a BR Code payload as a PNG image, for
// e-mails and documents. The BR Code manual asks for error correction
// level M at least; the encoding is rsc.io/qr's (docs/decisions.md
// "Dunning: Pix BR Code"), never written here by hand.
func PixQRPNG(payload string) ([]byte, error) {
	c, err := qr.Encode(payload, qr.M)
	if err != nil {
		return nil, fmt.Errorf("pix: QR code: %w", err)
	}
	c.Scale = 6
	return c.PNG(), nil
}
