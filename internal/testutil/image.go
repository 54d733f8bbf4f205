package testutil

import "image"

// Colours counts the distinct colours of img, sampling every step-th pixel
// in each direction and keeping the top 4 bits of each channel: a blank or
// one-colour picture has 1, a drawing many.
func Colours(img image.Image, step int) int {
	seen := map[uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += step {
		for x := b.Min.X; x < b.Max.X; x += step {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[r>>12<<8|g>>12<<4|bl>>12] = true
		}
	}
	return len(seen)
}
