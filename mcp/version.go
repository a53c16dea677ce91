package mcp

import "slices"

// Protocol revisions this package speaks. The 2026 revision is stateless and
// carries its version in every request; the two 2025 revisions negotiate it
// once through initialize.
const (
	Version20260728 = "2026-07-28"
	Version20250618 = "2025-06-18"
	Version20250326 = "2025-03-26"
)

// SupportedVersions is the one list of revisions this server speaks, newest
// first. server/discover advertises it and every -32022 error repeats it, so a
// client never sees two different answers to "what do you speak?".
var SupportedVersions = []string{Version20260728, Version20250618, Version20250326}

// DefaultLegacyVersion is how a request with neither the 2026 envelope nor an
// MCP-Protocol-Version header is answered, and what initialize counter-offers
// to a client that asks for a revision outside the 2025 era.
const DefaultLegacyVersion = Version20250618

// Era tells how a request is framed: with the per-request envelope of
// 2026-07-28 (Modern) or after an initialize handshake (Legacy).
type Era int

const (
	// EraLegacy is the 2025 handshake era (2025-06-18 and 2025-03-26).
	EraLegacy Era = iota
	// EraModern is the stateless 2026-07-28 era.
	EraModern
)

func (e Era) String() string {
	if e == EraModern {
		return "2026"
	}
	return "2025"
}

func isLegacyVersion(v string) bool { return v == Version20250618 || v == Version20250326 }

func isModernVersion(v string) bool { return v == Version20260728 }

func isSupportedVersion(v string) bool { return slices.Contains(SupportedVersions, v) }
