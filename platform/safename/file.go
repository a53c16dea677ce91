package safename

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrFileName is every refused file name; the wrapped message says why.
var ErrFileName = errors.New("not a valid file name")

// MaxFileName is the longest file name, in bytes: what common file
// systems (ext4, NTFS, APFS) allow for one name.
const MaxFileName = 255

// File checks that s is one file name a person can read and a file
// system can hold, and returns it with surrounding spaces trimmed. It
// refuses rather than alters: a Hidden character (control, NUL, CR/LF,
// bidi control — the "\u202ecsv.exe"), a path separator ("/" or
// "\\": "a/b", "../x"), a name made only of dots (".", ".."), invalid
// UTF-8, and a name over MaxFileName bytes. A name that was cleaned
// silently could become another file's name, or hide what was refused.
func File(s string) (string, error) {
	name := strings.TrimSpace(s)
	switch {
	case name == "":
		return "", fmt.Errorf("%w: it is empty", ErrFileName)
	case !utf8.ValidString(name):
		return "", fmt.Errorf("%w: it is not UTF-8 text", ErrFileName)
	case len(name) > MaxFileName:
		return "", fmt.Errorf("%w: longer than %d bytes", ErrFileName, MaxFileName)
	case strings.Trim(name, ".") == "":
		return "", fmt.Errorf("%w: %q is only dots", ErrFileName, name)
	case strings.ContainsAny(name, `/\`):
		return "", fmt.Errorf("%w: %q holds a path separator; give the name alone", ErrFileName, name)
	}
	for _, r := range name {
		if Hidden(r) {
			return "", fmt.Errorf("%w: contains the invisible or control character %U", ErrFileName, r)
		}
	}
	return name, nil
}
