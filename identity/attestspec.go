package identity

import (
	"fmt"
	"time"
)

// AttestSpec is what an owner decides when attesting an agent or device key;
// Conditions turns it into NIP-OA conditions. The CLI (hive agent attest,
// hive pair) parses flags into it.
type AttestSpec struct {
	Now       int64         // issue time, unix seconds
	ValidFor  time.Duration // lifetime from Now; 0 only with NoExpiry
	NoExpiry  bool          // valid until revoked
	NotBefore *int64        // events must be created at or after this time; nil: no bound
	Kinds     []int         // at most one kind (NIP-OA clauses must all hold)
}

// Conditions builds and checks the conditions: an expiry unless NoExpiry,
// a satisfiable window, valid clauses. Errors wrap ErrBadConditions and name the fix.
func (s AttestSpec) Conditions() (Conditions, error) {
	var c Conditions
	switch {
	case s.ValidFor != 0 && s.NoExpiry:
		return c, fmt.Errorf("%w: an expiry and no expiry conflict: give one of them", ErrBadConditions)
	case s.ValidFor == 0 && !s.NoExpiry:
		return c, fmt.Errorf("%w: refusing an attestation without expiry: give a lifetime (e.g. 30d), or ask for no expiry explicitly", ErrBadConditions)
	case s.ValidFor < 0:
		return c, fmt.Errorf("%w: lifetime %v is negative", ErrBadConditions, s.ValidFor)
	}
	for _, k := range s.Kinds {
		c = c.WithKind(k)
	}
	if s.NotBefore != nil {
		if *s.NotBefore <= 1 { // created_at>0 allows every event, and is the device clause
			return c, fmt.Errorf("%w: a not-before of %d allows every event; leave it out", ErrBadConditions, *s.NotBefore)
		}
		c = c.WithNotBefore(*s.NotBefore - 1) // created_at>(T-1): at or after T
	}
	if !s.NoExpiry {
		c = c.WithExpiry(s.Now + int64(s.ValidFor/time.Second))
	}
	if err := c.Validate(); err != nil {
		return c, err
	}
	if !c.Satisfiable() {
		return c, fmt.Errorf("%w: conditions %q can never hold: the expiry must come after the not-before time", ErrBadConditions, c.String())
	}
	return c, nil
}
