package agentbridge

import (
	"math/rand/v2"
	"time"
)

// Breaker settings: Threshold crashes within Window open the circuit for
// Cooldown; below that a crashed process is respawned after a jittered
// exponential delay.
const (
	breakerThreshold = 3
	breakerWindow    = 60 * time.Second
	breakerCooldown  = 5 * time.Minute
	respawnBase      = 500 * time.Millisecond
	respawnMax       = 30 * time.Second
)

// Breaker is one process slot's crash circuit breaker. Not safe for
// concurrent use.
type Breaker struct {
	crashes   []time.Time
	openUntil time.Time
}

// Crash records a crash at now and returns how long to wait before the next
// spawn, or open=true when the circuit opened (wait = the cooldown).
func (b *Breaker) Crash(now time.Time) (wait time.Duration, open bool) {
	if !b.openUntil.IsZero() && now.Sub(b.openUntil) < breakerWindow {
		// half-open: the probe after the cooldown crashed within a window
		b.openUntil = now.Add(breakerCooldown)
		return breakerCooldown, true
	}
	keep := b.crashes[:0]
	for _, t := range b.crashes {
		if now.Sub(t) < breakerWindow {
			keep = append(keep, t)
		}
	}
	b.crashes = append(keep, now)
	if len(b.crashes) >= breakerThreshold {
		b.openUntil = now.Add(breakerCooldown)
		b.crashes = nil
		return breakerCooldown, true
	}
	d := respawnBase << (len(b.crashes) - 1)
	if d > respawnMax {
		d = respawnMax
	}
	jitter := 0.8 + 0.4*rand.Float64()
	return time.Duration(float64(d) * jitter), false
}

// Open reports whether the circuit is open at now.
func (b *Breaker) Open(now time.Time) bool { return now.Before(b.openUntil) }
