package schedule

import (
	"time"
)

// Schedule is a cron in a timezone.
type Schedule struct {
	Cron *Cron
	Loc  *time.Location
}

// New is cron read in loc.
func New(c *Cron, loc *time.Location) *Schedule { return &Schedule{Cron: c, Loc: loc} }

// Slot is one wall-clock slot and the instant it fires.
//
// The rule (spec/workflows.md, "Schedules"): each wall-clock slot fires
// once. A slot inside a spring-forward gap (a local time that does not
// exist that day) fires at the first instant after the gap; an ambiguous
// slot (a local time that occurs twice when the clock falls back) fires
// once, at its first occurrence.
type Slot struct {
	Wall      time.Time // the slot's wall-clock reading, as a time in UTC
	At        time.Time // when it fires, in the schedule's zone
	Gap       bool      // the wall time does not exist that day
	Ambiguous bool      // the wall time occurs twice that day
	zone      string
}

// ID names the slot: its wall-clock minute and zone, e.g.
// "2026-03-29T02:30 Europe/Berlin". Two runs of one slot share it.
func (s Slot) ID() string { return s.Wall.Format("2006-01-02T15:04") + " " + s.zone }

// wallOf is t's local reading in loc, as a time in UTC.
func wallOf(t time.Time, loc *time.Location) time.Time {
	l := t.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), 0, time.UTC)
}

// instant maps a wall-clock reading to the instant it fires in loc.
func instant(wall time.Time, loc *time.Location) Slot {
	s := Slot{Wall: wall, zone: loc.String()}
	// every offset the zone uses within a day and a half of the slot
	seen := map[int]bool{}
	var hits []time.Time
	for h := -36; h <= 36; h++ {
		_, off := wall.Add(time.Duration(h) * time.Hour).In(loc).Zone()
		if seen[off] {
			continue
		}
		seen[off] = true
		if t := wall.Add(-time.Duration(off) * time.Second); wallOf(t, loc).Equal(wall) {
			hits = append(hits, t)
		}
	}
	if len(hits) > 0 {
		first := hits[0]
		for _, t := range hits[1:] {
			if t.Before(first) {
				first = t
			}
		}
		s.At, s.Ambiguous = first.In(loc), len(hits) > 1
		return s
	}
	// a gap: the first instant whose reading is past the slot
	lo := wall.Add(-36 * time.Hour)
	for !wallOf(lo.Add(time.Hour), loc).After(wall) {
		lo = lo.Add(time.Hour)
	}
	hi := lo.Add(time.Hour) // wallOf(lo) <= wall < wallOf(hi)
	for hi.Sub(lo) > time.Second {
		mid := lo.Add(hi.Sub(lo) / 2).Truncate(time.Second)
		if wallOf(mid, loc).After(wall) {
			hi = mid
		} else {
			lo = mid
		}
	}
	s.At, s.Gap = hi.In(loc), true
	return s
}

// Slots are the first n slots that fire at or after from, in order.
func (s *Schedule) Slots(from time.Time, n int) []Slot {
	var out []Slot
	s.walk(from.Add(-time.Nanosecond), func(sl Slot) bool {
		out = append(out, sl)
		return len(out) < n
	})
	return out
}

// walk calls fn with every slot firing after `after`, in order, while fn
// says go on. It starts three hours of wall-clock time early: a slot whose
// reading is before after's reading can still fire after it (a gap's end).
func (s *Schedule) walk(after time.Time, fn func(Slot) bool) {
	w := wallOf(after, s.Loc).Add(-3 * time.Hour).Truncate(time.Minute)
	for {
		w = s.Cron.nextWall(w)
		if w.IsZero() {
			return
		}
		sl := instant(w, s.Loc)
		if !sl.At.After(after) {
			continue
		}
		if !fn(sl) {
			return
		}
	}
}

// Catchup is what a schedule does when its runner looks at it: at most one
// slot to run, and the slots it missed and will not run.
type Catchup struct {
	Run     *Slot // nil: nothing to run now
	Skipped int   // slots missed and not run
	Oldest  *Slot // the first skipped slot
	Newest  *Slot // the last skipped slot
}

// Due decides what to run at now, when every slot up to last (an instant)
// is settled, run or recorded: of the slots firing in (last, now], only the
// newest runs, and only if it is at most maxLate old; every other one is
// skipped. last is bounded by the caller (a run lives at most 7 days; a new
// workflow's last is when it was applied).
func (s *Schedule) Due(last, now time.Time, maxLate time.Duration) Catchup {
	var c Catchup
	var newest *Slot
	skip := func(sl Slot) {
		if c.Oldest == nil {
			c.Oldest = &sl
		}
		c.Newest = &sl
		c.Skipped++
	}
	s.walk(last, func(sl Slot) bool {
		if sl.At.After(now) {
			return false
		}
		if newest != nil {
			skip(*newest)
		}
		newest = &sl
		return true
	})
	if newest == nil {
		return c
	}
	if now.Sub(newest.At) <= maxLate {
		c.Run = newest
	} else {
		skip(*newest)
	}
	return c
}
