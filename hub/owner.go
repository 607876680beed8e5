package hub

// A paired device acts as its owner while its attestation stands
// (spec/auth.md, "Devices act as their owner"): it reads what the owner
// reads and writes where the owner writes, with the owner's roles.

// actsAs is the member pk acts as at created_at: the owner of a paired
// device whose attestation stands then (recorded from its profile: the
// device clause, not revoked, its time clauses holding), else pk itself.
// Agents always act as themselves.
func actsAs(s state, pk string, at int64) (string, error) {
	a, err := s.attested(pk)
	if err != nil || !a.device || a.owner == "" || a.deadAt(at) != "" {
		return pk, err
	}
	return a.owner, nil
}

// keyOf is the member whose key author is, for the author-only kinds: the
// owner of a key recorded as the owner's paired device, whether or not its
// attestation still stands (what a device once wrote stays its owner's),
// else author itself.
func (v *view) keyOf(author string) string {
	if _, ok := v.devices[author]; ok {
		if o := v.agents[author]; o != "" {
			return o
		}
	}
	return author
}

// keysOf lists member's own key and every key recorded as its paired device,
// the authors whose author-only events member and its devices read.
func (v *view) keysOf(member string) []string {
	keys := []string{member}
	for d := range v.devices {
		if v.agents[d] == member {
			keys = append(keys, d)
		}
	}
	return keys
}
