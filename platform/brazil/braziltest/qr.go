package braziltest

import (
	"bytes"
	"image/png"
	"testing"

	"github.com/makiuchi-d/gozxing"
	gozxingqr "github.com/makiuchi-d/gozxing/qrcode"
)

// ReadQR is the text of the QR code in a PNG, read by gozxing (a ZXing
// port), not by the code that drew it: a Pix QR is checked by an
// independent reader, as the codes themselves are by this package's own
// CRC.
func ReadQR(t testing.TB, img []byte) string {
	t.Helper()
	m, err := png.Decode(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(m)
	if err != nil {
		t.Fatal(err)
	}
	res, err := gozxingqr.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.GetText()
}
