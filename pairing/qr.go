package pairing

import (
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // decode JPEG photos of a code too
	_ "image/png"
	"io"

	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"
	"github.com/skip2/go-qrcode"
)

// ErrNoQR means an image holds no readable QR code.
var ErrNoQR = errors.New("no readable QR code in the image")

// QRPNG renders uri as a PNG QR code with moduleSize pixels per module
// (medium error correction: a pairing URI is about 250 characters). Whole
// pixels per module keep every module the same size, which readers need.
func QRPNG(uri string, moduleSize int) ([]byte, error) {
	q, err := qrcode.New(uri, qrcode.Medium)
	if err != nil {
		return nil, err
	}
	return q.PNG(-moduleSize)
}

// QRTerminal renders uri as a QR code made of Unicode half blocks, two
// rows of modules per line, for a terminal.
func QRTerminal(uri string) (string, error) {
	q, err := qrcode.New(uri, qrcode.Low)
	if err != nil {
		return "", err
	}
	return q.ToSmallString(false), nil
}

// DecodeQR reads the text of the QR code in an image (PNG or JPEG). It
// tries a photo-tolerant pass first, then a pass for clean generated images
// (the file hive pair --png writes), on which the first pass sometimes
// misses the finder patterns.
func DecodeQR(r io.Reader) (string, error) {
	img, _, err := image.Decode(r)
	if err != nil {
		return "", fmt.Errorf("%w: not a PNG or JPEG image: %v", ErrNoQR, err)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoQR, err)
	}
	var firstErr error
	for _, hints := range []map[gozxing.DecodeHintType]any{
		{gozxing.DecodeHintType_TRY_HARDER: true},
		{gozxing.DecodeHintType_PURE_BARCODE: true},
	} {
		res, err := zxqr.NewQRCodeReader().Decode(bmp, hints)
		if err == nil {
			return res.GetText(), nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return "", fmt.Errorf("%w: %v", ErrNoQR, firstErr)
}
