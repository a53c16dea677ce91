package runtime

// ToolInfo is what Kadu must know of another product's tool for a task to
// call it: the product it belongs to, the scopes and permission its
// requirement names, and whether it is destructive (an execution then
// waits for an approval before calling it).
type ToolInfo struct {
	Product     string
	Scopes      []string
	Permission  string
	Destructive bool
}
