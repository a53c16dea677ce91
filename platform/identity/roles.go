package identity

// Role is what a person may do in an organization, independently of the
// scopes a token holds: a token can never do more than its person may.
type Role string

// Roles, from the least to the most trusted.
const (
	RoleViewer Role = "viewer"
	RoleMember Role = "member"
	RoleAdmin  Role = "admin"
	RoleOwner  Role = "owner"
)

// Roles lists every role, least trusted first.
var Roles = []Role{RoleViewer, RoleMember, RoleAdmin, RoleOwner}

// Permission classes an operation declares (mcp.Requirement.Permission).
const (
	// PermRead: reading data.
	PermRead = "read"
	// PermWrite: creating and changing ordinary data.
	PermWrite = "write"
	// PermManage: destructive or security-relevant changes — deleting,
	// sending something out, rotating secrets, changing who may send.
	PermManage = "manage"
	// PermOwn: changes to the organization itself (its workspaces' limits,
	// deleting a workspace, people and roles).
	PermOwn = "own"
)

var rank = map[Role]int{RoleViewer: 1, RoleMember: 2, RoleAdmin: 3, RoleOwner: 4}

var needs = map[string]Role{PermRead: RoleViewer, PermWrite: RoleMember, PermManage: RoleAdmin, PermOwn: RoleOwner}

// Valid reports whether r is a known role.
func (r Role) Valid() bool { return rank[r] > 0 }

// Allows reports whether the role may run an operation of the given
// permission class. An empty permission needs only a valid role; an
// unknown one is refused.
func (r Role) Allows(permission string) bool {
	if rank[r] == 0 {
		return false
	}
	if permission == "" {
		return true
	}
	min, ok := needs[permission]
	return ok && rank[r] >= rank[min]
}
