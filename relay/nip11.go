package relay

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/nbd-wtf/go-nostr/nip11"
)

// limitation extends NIP-11's with the other limits hive enforces: filters
// per request and values per filter, and the budget of a connection that has
// not authenticated.
type limitation struct {
	nip11.RelayLimitationDocument
	MaxFilters             int     `json:"max_filters"`
	MaxFilterValues        int     `json:"max_filter_values"`
	MaxUnauthMessageLength int     `json:"max_unauth_message_length"`
	UnauthMessageBurst     int     `json:"unauth_message_burst"`
	UnauthMessagesPerSec   float64 `json:"unauth_messages_per_second"`
	MaxUnauthConnections   int     `json:"max_unauth_connections"`
	MaxUnauthConnsPerIP    int     `json:"max_unauth_connections_per_ip"`
	AuthTimeoutSeconds     int     `json:"auth_timeout"`
	MaxPendingConnections  int     `json:"max_pending_connections"`
	MaxPendingConnsPerIP   int     `json:"max_pending_connections_per_ip"`
	HeaderTimeoutSeconds   int     `json:"header_timeout"`
	MaxConnsPerMember      int     `json:"max_connections_per_member"`
	MaxMemberQueuedBytes   int     `json:"max_member_queued_bytes"`
	MaxMemberReads         int     `json:"max_member_reads"`
}

type info struct {
	nip11.RelayInformationDocument
	Self       string     `json:"self,omitempty"` // NIP-11: the key the hub signs its own events with
	Limitation limitation `json:"limitation"`
}

// Info is the hub's NIP-11 document; every limit the hub enforces is in it.
func (r *Relay) Info() any {
	def, max := r.store.Limits()
	nips := make([]any, len(r.cfg.SupportedNIPs))
	for i, n := range r.cfg.SupportedNIPs {
		nips[i] = n
	}
	name, description, icon := r.cfg.Name, r.cfg.Description, r.cfg.Icon
	if r.Hooks.Describe != nil {
		name, description, icon = r.Hooks.Describe(name, description, icon)
	}
	doc := info{
		RelayInformationDocument: nip11.RelayInformationDocument{
			Name:          name,
			Description:   description,
			PubKey:        r.cfg.PubKey,
			SupportedNIPs: nips,
			Software:      "hive",
			Version:       r.cfg.Version,
			Icon:          icon,
		},
		Self: r.cfg.Self,
		Limitation: limitation{
			RelayLimitationDocument: nip11.RelayLimitationDocument{
				MaxMessageLength:    r.cfg.MaxMessageBytes,
				MaxSubscriptions:    r.cfg.MaxSubscriptions,
				MaxLimit:            max,
				DefaultLimit:        def,
				MaxSubidLength:      r.cfg.MaxSubIDLength,
				MaxEventTags:        r.cfg.MaxEventTags,
				MaxContentLength:    r.cfg.MaxContentBytes,
				CreatedAtUpperLimit: int64(r.cfg.MaxFutureSkew.Seconds()),
				AuthRequired:        r.cfg.RequireAuth,
				RestrictedWrites:    r.cfg.RequireAuth,
			},
			MaxFilters:             r.cfg.MaxFilters,
			MaxFilterValues:        r.cfg.MaxFilterValues,
			MaxUnauthMessageLength: r.cfg.MaxUnauthMessageBytes,
			UnauthMessageBurst:     r.cfg.UnauthBurst,
			UnauthMessagesPerSec:   r.cfg.UnauthRate,
			MaxUnauthConnections:   r.cfg.MaxUnauthConns,
			MaxUnauthConnsPerIP:    r.cfg.MaxUnauthPerAddr,
			AuthTimeoutSeconds:     int(r.cfg.AuthTimeout.Seconds()),
			MaxPendingConnections:  r.cfg.MaxPendingConns,
			MaxPendingConnsPerIP:   r.cfg.MaxPendingPerAddr,
			HeaderTimeoutSeconds:   int(r.cfg.HeaderTimeout.Seconds()),
			MaxConnsPerMember:      r.cfg.MaxConnsPerMember,
			MaxMemberQueuedBytes:   r.cfg.MaxMemberQueued,
			MaxMemberReads:         r.cfg.MaxMemberReads,
		},
	}
	return doc
}

func (r *Relay) serveInfo(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/nostr+json")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept")
	w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	json.NewEncoder(w).Encode(r.Info())
}

// WantsInfo reports whether req asks for the NIP-11 document: its Accept
// header names application/nostr+json.
func WantsInfo(req *http.Request) bool {
	return strings.Contains(req.Header.Get("Accept"), "application/nostr+json")
}
