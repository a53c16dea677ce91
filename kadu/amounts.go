package kadu

import "github.com/kobana/kobana-mcp/platform/money"

// maxAmount is the largest amount Kadu's API and settings accept, R$ 1
// trillion: Kadu's amounts are costs, ceilings and limits, far below the
// charges platform/money's Max is sized for, and a float64 tells every
// cent of them apart. Every amount Kadu reads goes through
// money.FromFloatAtMost with it, whose refusal names it.
const maxAmount money.Cents = 1_000_000_000_000 * 100
