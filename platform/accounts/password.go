package accounts

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// PasswordParams are the argon2id costs new password hashes are made with.
// Each hash records its own, so raising them later still verifies older
// hashes.
type PasswordParams struct {
	// Memory is in KiB.
	Memory uint32
	// Time is the number of passes over the memory.
	Time uint32
	// Threads is the degree of parallelism.
	Threads uint8
	// SaltLen and KeyLen are in bytes.
	SaltLen, KeyLen uint32
}

// DefaultPasswordParams follow OWASP's password storage cheat sheet for
// argon2id (19 MiB, 2 passes, 1 thread): tens of milliseconds per sign-in
// on one core, and a guessing attacker pays the same per guess.
var DefaultPasswordParams = PasswordParams{Memory: 19 * 1024, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}

// Bounds on what a stored hash may ask for, so a corrupted or planted row
// cannot make one sign-in allocate gigabytes or spin for minutes.
const (
	maxMemoryKiB = 1 << 20 // 1 GiB
	maxTime      = 64
	minKeyLen    = 16
	maxKeyLen    = 128
	minSaltLen   = 8
	maxSaltLen   = 64
)

var b64 = base64.RawStdEncoding // PHC strings use unpadded standard base64

// HashPassword hashes a password with argon2id and a random salt, and
// encodes the result the way the PHC string format and libargon2 do:
//
//	$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>
//
// so the hash carries everything needed to check it, and other argon2
// implementations can read it.
func HashPassword(password string, p PasswordParams) string {
	salt := make([]byte, p.SaltLen)
	_, _ = rand.Read(salt) // crypto/rand.Read never fails (Go 1.24+)
	key := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.Memory, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key))
}

// errMalformedHash: the stored string is not an argon2id hash this package
// can check. It is a data problem, never a wrong password.
var errMalformedHash = errors.New("accounts: malformed password hash")

// CheckPassword reports whether password matches an encoded hash, comparing
// in constant time. An error means the hash itself is unreadable.
func CheckPassword(encoded, password string) (bool, error) {
	p, salt, key, err := decodeHash(encoded)
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1, nil
}

func decodeHash(encoded string) (p PasswordParams, salt, key []byte, err error) {
	parts := strings.Split(encoded, "$")
	// "", "argon2id", "v=19", "m=…,t=…,p=…", salt, hash
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return p, nil, nil, errMalformedHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return p, nil, nil, fmt.Errorf("%w: version %q", errMalformedHash, parts[2])
	}
	var threads uint32
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &threads); err != nil {
		return p, nil, nil, fmt.Errorf("%w: parameters %q", errMalformedHash, parts[3])
	}
	if p.Time < 1 || p.Time > maxTime || threads < 1 || threads > 255 || p.Memory < 8*threads || p.Memory > maxMemoryKiB {
		return p, nil, nil, fmt.Errorf("%w: parameters %q out of bounds", errMalformedHash, parts[3])
	}
	p.Threads = uint8(threads)
	if salt, err = b64.DecodeString(parts[4]); err != nil || len(salt) < minSaltLen || len(salt) > maxSaltLen {
		return p, nil, nil, fmt.Errorf("%w: salt", errMalformedHash)
	}
	if key, err = b64.DecodeString(parts[5]); err != nil || len(key) < minKeyLen || len(key) > maxKeyLen {
		return p, nil, nil, fmt.Errorf("%w: key", errMalformedHash)
	}
	p.SaltLen, p.KeyLen = uint32(len(salt)), uint32(len(key))
	return p, salt, key, nil
}

// GeneratePassword returns a new random password: 26 characters of base32,
// 128 bits of entropy, for accounts created without one (the demo owner, a
// `users create` without --password).
func GeneratePassword() string { return rand.Text() }

// Password length rules, NIST SP 800-63B: at least 8 characters, and a
// generous maximum that only stops abuse of the hash function.
const (
	minPasswordRunes = 8
	maxPasswordBytes = 1024
)

func validatePassword(pw string) error {
	if n := len([]rune(pw)); n < minPasswordRunes {
		return fmt.Errorf("%w: a password needs at least %d characters", ErrInvalid, minPasswordRunes)
	}
	if len(pw) > maxPasswordBytes {
		return fmt.Errorf("%w: a password may have at most %d bytes", ErrInvalid, maxPasswordBytes)
	}
	return nil
}
