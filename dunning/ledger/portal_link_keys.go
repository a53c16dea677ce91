package ledger

// PortalLinks makes and checks the debtor page's links (portal_link.go):
// the product's public URL and the links' signing key.
type PortalLinks struct {
	base string
	key  []byte
}
