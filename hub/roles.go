package hub

// role is a key's role in a channel; the hub itself knows admin and member.
type role string

// The roles, by rank: owner > admin > member = bot > guest > none.
const (
	noRole     role = ""
	roleGuest  role = "guest"
	roleBot    role = "bot"
	roleMember role = "member"
	roleAdmin  role = "admin"
	roleOwner  role = "owner"
)

// channelRoles lists the roles a channel member may hold, highest first.
func channelRoles() []role { return []role{roleOwner, roleAdmin, roleMember, roleBot, roleGuest} }

// rank orders roles; a guest may read and write but not manage a channel.
func (r role) rank() int {
	switch r {
	case roleOwner:
		return 4
	case roleAdmin:
		return 3
	case roleMember, roleBot:
		return 2
	case roleGuest:
		return 1
	}
	return 0
}

// atLeast reports whether r ranks at or above o.
func (r role) atLeast(o role) bool { return r.rank() >= o.rank() }

// parseRole accepts the name of a channel role.
func parseRole(s string) (role, bool) {
	for _, r := range channelRoles() {
		if string(r) == s {
			return r, true
		}
	}
	return noRole, false
}

// visibility says who may read and write a channel.
type visibility string

const (
	visOpen    visibility = "open"    // every hub participant
	visPrivate visibility = "private" // its members
)

// channelType is a stream (a named channel) or a DM (a fixed set of keys).
type channelType string

const (
	typeStream channelType = "stream"
	typeDM     channelType = "dm"
)

// channel is a row of the channels table.
type channel struct {
	id, name, about, creator string
	picture                  string // NIP-29 picture URL, "" for none (table channel_pictures)
	visibility               visibility
	typ                      channelType
	deleted                  bool // archived
}

// open channels are readable and writable by every hub participant.
func (c *channel) open() bool { return c.visibility == visOpen && c.typ == typeStream }
