// Package kinds is the single source of truth for every event kind hive knows:
// its partition, how it is stored, which tags it needs and who may read it.
// spec/kinds.md is generated from this table and a test keeps the two equal.
package kinds

import (
	"fmt"
	"sort"
	"strings"
)

// Partition says how a kind takes part in a conversation.
type Partition string

const (
	Content           Partition = "content"            // timeline rows that count as unread
	AuxOverlay        Partition = "aux-overlay"        // modifies an existing row, fetched by #e
	NonConversational Partition = "non-conversational" // everything else
	NoPartition       Partition = "-"                  // never stored, not part of any timeline
)

// Storage is the NIP-01 storage class of a kind.
type Storage string

const (
	Regular     Storage = "regular"
	Replaceable Storage = "replaceable"
	Addressable Storage = "addressable"
	Ephemeral   Storage = "ephemeral"
	NeverStored Storage = "never-stored"
)

// Gate says who may read events of a kind.
type Gate string

const (
	Members        Gate = "members"         // any hub member
	ChannelMembers Gate = "channel-members" // members of the channel named by h (open channels: any hub member)
	AuthorOnly     Gate = "author-only"     // only the event's author
	RecipientOnly  Gate = "recipient-only"  // only the pubkeys named in p tags
)

// Kind is one row of the registry.
type Kind struct {
	Num          int
	Name         string
	Partition    Partition
	Storage      Storage
	RequiredTags []string // tag names that must be present
	Gate         Gate
	HubSigned    bool // only the hub's own key may sign it
	Notes        string
}

// Numbers of the kinds hive gives meaning to.
const (
	Profile         = 0
	Deletion        = 5
	Reaction        = 7
	Message         = 9
	AddUser         = 9000
	RemoveUser      = 9001
	EditMetadata    = 9002
	DeleteInChannel = 9005
	CreateGroup     = 9007
	DeleteGroup     = 9008
	JoinRequest     = 9021
	LeaveRequest    = 9022
	Presence        = 20001
	Typing          = 20002
	Auth            = 22242
	PairingMessage  = 24134
	ObserverFrame   = 24200
	ReadState       = 30078
	AgentRevocation = 30450
	GroupMetadata   = 39000
	GroupAdmins     = 39001
	GroupMembers    = 39002
	Edit            = 40003
	SystemRow       = 40099
	HubMemberAdd    = 8000
	HubMemberRemove = 8001
	HubMemberList   = 13534
)

// table is read-only after package init; Lookup hands out copies.
var table = []Kind{
	{Profile, "profile", NonConversational, Replaceable, nil, Members, false, "agents add their NIP-OA `auth` tag and a bot marker"},
	{Deletion, "deletion (NIP-09)", AuxOverlay, Regular, []string{"e|a"}, ChannelMembers, false, "author's own events only; channel derived from the target; hub state events cannot be deleted"},
	{Reaction, "reaction", AuxOverlay, Regular, []string{"e"}, ChannelMembers, false, "`e` = target; channel derived from the target"},
	{Message, "message", Content, Regular, []string{"h"}, ChannelMembers, false, "`h` = channel id; NIP-10 `e` root/reply markers for threads; `p` mentions"},
	{HubMemberAdd, "hub member added (NIP-43)", NonConversational, Regular, []string{"p"}, Members, false, "signed by a hub admin"},
	{HubMemberRemove, "hub member removed (NIP-43)", NonConversational, Regular, []string{"p"}, Members, false, "signed by a hub admin; cascades to the member's agents"},
	{AddUser, "add member / set role", NonConversational, Regular, []string{"h", "p"}, ChannelMembers, false, "NIP-29 style; role in the `p` tag's third element"},
	{RemoveUser, "remove member", NonConversational, Regular, []string{"h", "p"}, ChannelMembers, false, "NIP-29 style"},
	{EditMetadata, "channel edit", NonConversational, Regular, []string{"h"}, ChannelMembers, false, "NIP-29 style"},
	{DeleteInChannel, "delete in channel", AuxOverlay, Regular, []string{"h", "e"}, ChannelMembers, false, "by the author, the author's owner or a channel admin"},
	{CreateGroup, "channel create", NonConversational, Regular, []string{"h"}, ChannelMembers, false, "NIP-29 style"},
	{DeleteGroup, "channel delete", NonConversational, Regular, []string{"h"}, ChannelMembers, false, "NIP-29 style"},
	{JoinRequest, "join", NonConversational, Regular, []string{"h"}, ChannelMembers, false, "open channels only"},
	{LeaveRequest, "leave", NonConversational, Regular, []string{"h"}, ChannelMembers, false, "the last owner cannot leave"},
	{HubMemberList, "hub member list (NIP-43)", NonConversational, Replaceable, nil, Members, true, "hub-signed"},
	{Presence, "presence", NonConversational, Ephemeral, nil, Members, false, ""},
	{Typing, "typing", NonConversational, Ephemeral, []string{"h"}, ChannelMembers, false, ""},
	{Auth, "AUTH (NIP-42)", NoPartition, NeverStored, []string{"relay", "challenge"}, AuthorOnly, false, "only inside an AUTH message"},
	{PairingMessage, "pairing message (NIP-AB)", NonConversational, Ephemeral, []string{"p"}, RecipientOnly, false, ""},
	{ObserverFrame, "agent observer frame", NonConversational, Ephemeral, []string{"p"}, RecipientOnly, false, "NIP-44; only the `#p` recipient may read"},
	{ReadState, "read-state", NonConversational, Addressable, []string{"d"}, AuthorOnly, false, "NIP-44 to self; `d` = read-state:<context>"},
	{AgentRevocation, "agent revocation", NonConversational, Addressable, []string{"d"}, Members, false, "owner-signed; `d` = agent pubkey"},
	{GroupMetadata, "channel metadata", NonConversational, Addressable, []string{"d"}, ChannelMembers, true, "hub-signed; `d` = channel id"},
	{GroupAdmins, "channel admins", NonConversational, Addressable, []string{"d"}, ChannelMembers, true, "hub-signed; `d` = channel id"},
	{GroupMembers, "channel members", NonConversational, Addressable, []string{"d"}, ChannelMembers, true, "hub-signed; `d` = channel id"},
	{Edit, "edit", AuxOverlay, Regular, []string{"h", "e"}, ChannelMembers, false, "content is the full new text"},
	{SystemRow, "system row", NonConversational, Regular, []string{"h"}, ChannelMembers, true, "hub-signed: channel created, member joined or left, agent failure"},
}

var index = func() map[int]int {
	m := make(map[int]int, len(table))
	for i, k := range table {
		if _, dup := m[k.Num]; dup {
			panic(fmt.Sprintf("kinds: %d registered twice", k.Num))
		}
		m[k.Num] = i
	}
	return m
}()

// All returns a copy of the registry, ordered by kind number.
func All() []Kind {
	out := make([]Kind, len(table))
	copy(out, table)
	sort.Slice(out, func(i, j int) bool { return out[i].Num < out[j].Num })
	return out
}

// Lookup returns the registry row for n, if hive knows it.
func Lookup(n int) (Kind, bool) {
	i, ok := index[n]
	if !ok {
		return Kind{}, false
	}
	return table[i], true
}

// Classify returns the registry row for n, or for an unknown kind a row
// derived from its NIP-01 range: non-conversational and readable by members.
func Classify(n int) Kind {
	if k, ok := Lookup(n); ok {
		return k
	}
	return Kind{Num: n, Name: "unregistered", Partition: NonConversational, Storage: RangeStorage(n), Gate: Members}
}

// RangeStorage is the storage class NIP-01 assigns to a kind number.
func RangeStorage(n int) Storage {
	switch {
	case n == 0 || n == 3 || (n >= 10000 && n < 20000):
		return Replaceable
	case n >= 20000 && n < 30000:
		return Ephemeral
	case n >= 30000 && n < 40000:
		return Addressable
	default:
		return Regular
	}
}

// MarkdownTable renders the registry as the table in spec/kinds.md.
func MarkdownTable() string {
	var b strings.Builder
	b.WriteString("| kind | name | partition | storage | required tags | readable by | hub-signed | notes |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, k := range All() {
		tags := "-"
		if len(k.RequiredTags) > 0 {
			tags = "`" + strings.ReplaceAll(strings.Join(k.RequiredTags, "`, `"), "|", "` or `") + "`"
		}
		signed := "no"
		if k.HubSigned {
			signed = "yes"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s | %s |\n", k.Num, k.Name, k.Partition, k.Storage, tags, k.Gate, signed, k.Notes)
	}
	return b.String()
}
