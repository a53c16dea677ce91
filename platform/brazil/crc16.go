package brazil

// crcTable is the CRC-16/CCITT-FALSE table (polynomial 0x1021), the
// checksum the BR Code (Pix) specification puts in field 63.
var crcTable = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

// crc16CCITT is CRC-16/CCITT-FALSE: initial value 0xFFFF, no reflection,
// no final XOR.
func crc16CCITT(data []byte) uint16 {
	crc := uint16(0xFFFF)
	for _, b := range data {
		crc = crc<<8 ^ crcTable[byte(crc>>8)^b]
	}
	return crc
}
