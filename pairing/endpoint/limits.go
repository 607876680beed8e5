package endpoint

import "time"

// Limits bound what the pairing endpoint lets anyone do. Zero values take
// the defaults listed in spec/pairing.md (and checked by a test).
type Limits struct {
	MaxConns       int           // open connections in total (default 128)
	MaxConnsPerIP  int           // open connections from one remote address (default 16)
	ConnLifetime   time.Duration // a connection is closed after this long (default 180 s)
	MaxFrame       int64         // largest websocket message in bytes (default 16384)
	RateWindow     time.Duration // window of the two rate limits below (default 10 s)
	RateFrames     int           // messages per connection per window (default 20)
	RateEvents     int           // EVENTs per connection per window (default 10)
	EventsPerConn  int           // signature-verified EVENTs per connection, ever (default 8)
	DeliveriesPerP int           // events delivered to one #p value, ever (default 16)
	Freshness      time.Duration // created_at must be within now ± this (default 120 s)
	SeenTTL        time.Duration // how long an event id is remembered for dedup (default 300 s)
	SeenCap        int           // remembered ids (and #p delivery counters); past it, new events are refused (default 4096)
	AddrEvents     int           // events one source address may have delivered, as sender or recipient, per SeenTTL (default 128)
	MaxSubIDLength int           // default 64
	WriteTimeout   time.Duration // per outbound message (default 5 s)
	OutboundQueue  int           // messages queued for one connection before it is dropped (default 16)
}

func (l *Limits) defaults() {
	set := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	setD := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	set(&l.MaxConns, 128)
	set(&l.MaxConnsPerIP, 16)
	setD(&l.ConnLifetime, 180*time.Second)
	if l.MaxFrame <= 0 {
		l.MaxFrame = 16384
	}
	setD(&l.RateWindow, 10*time.Second)
	set(&l.RateFrames, 20)
	set(&l.RateEvents, 10)
	set(&l.EventsPerConn, 8)
	set(&l.DeliveriesPerP, 16)
	setD(&l.Freshness, 120*time.Second)
	setD(&l.SeenTTL, 300*time.Second)
	set(&l.SeenCap, 4096)
	set(&l.AddrEvents, 128)
	set(&l.MaxSubIDLength, 64)
	setD(&l.WriteTimeout, 5*time.Second)
	set(&l.OutboundQueue, 16)
}

// Defaults returns the limits with every default filled in.
func Defaults() Limits {
	var l Limits
	l.defaults()
	return l
}

// window counts occurrences in a fixed window.
type window struct {
	start time.Time
	n     int
}

// allow counts one occurrence at now and reports whether it is within max.
func (w *window) allow(now time.Time, span time.Duration, max int) bool {
	if now.Sub(w.start) >= span {
		w.start, w.n = now, 0
	}
	w.n++
	return w.n <= max
}
