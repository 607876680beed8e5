package postgres

import (
	"context"
	"time"
)

// SweepExpired deletes events whose NIP-40 expiration has passed. Queries
// already hide them; this reclaims the space.
func (s *Store) SweepExpired(ctx context.Context) error {
	return s.submit(ctx, &write{op: opSweep})
}

func (s *Store) sweep(tx *Tx) error {
	return deleteWhere(tx, `expiration IS NOT NULL AND expiration <= $1`, s.opts.Now().Unix())
}

// sweeper is the store's maintenance loop: it sweeps expired events every
// SweepEvery until Close.
func (s *Store) sweeper() {
	defer close(s.sweepDone)
	if s.opts.SweepEvery < 0 {
		<-s.stopSweep
		return
	}
	t := time.NewTicker(s.opts.SweepEvery)
	defer t.Stop()
	for {
		select {
		case <-s.stopSweep:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			if err := s.SweepExpired(ctx); err != nil {
				s.opts.Log("sweeping expired events failed", err)
			}
			cancel()
		}
	}
}
