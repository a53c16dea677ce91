package rest

// Operations are the API's declared operations, in declaration order: what
// a product's scopes and its generated reference are derived from.
func (a *API) Operations() []Operation {
	out := make([]Operation, len(a.ops))
	for i, reg := range a.ops {
		out[i] = reg.op
	}
	return out
}
