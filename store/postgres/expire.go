package postgres

import "context"

// SweepExpired deletes events whose NIP-40 expiration has passed. Queries
// already hide them; this reclaims the space. The store also runs it every
// Options.SweepEvery.
func (s *Store) SweepExpired(ctx context.Context) error {
	return s.submit(ctx, &write{op: opSweep})
}

func (s *Store) sweep(tx *Tx) error {
	return deleteWhere(tx, `expiration IS NOT NULL AND expiration <= $1`, s.opts.Now().Unix())
}
