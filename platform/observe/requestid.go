package observe

import (
	crand "crypto/rand"
	"encoding/hex"
	"math/rand/v2"
	"sync"
)

// idSources are ChaCha8 generators, each seeded from crypto/rand when it
// is made. Reading the operating system's randomness for every request was
// a system call per request (docs/decisions.md, "Request id and access
// line without slog's generic path"); ChaCha8 is a cryptographically
// strong generator, so an id tells nothing about the ids of other
// requests, on this replica or another. A generator is used by one
// goroutine at a time (the pool hands each out once).
var idSources = sync.Pool{New: func() any {
	var seed [32]byte
	_, _ = crand.Read(seed[:])
	return rand.NewChaCha8(seed)
}}

// requestIDBytes is how much randomness an id holds: 96 bits, so ids made
// by any number of replicas do not collide in practice. Hex-encoded, an id
// is 24 characters, as it always was.
const requestIDBytes = 12

func newRequestID() string {
	var raw [requestIDBytes]byte
	src := idSources.Get().(*rand.ChaCha8)
	_, _ = src.Read(raw[:])
	idSources.Put(src)
	var text [2 * requestIDBytes]byte
	hex.Encode(text[:], raw[:])
	return string(text[:])
}
