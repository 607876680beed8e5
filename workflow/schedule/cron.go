// Package schedule is the maths of workflow schedules: a 5-field cron read
// in an IANA timezone, its wall-clock slots mapped to instants under one
// written rule for daylight-saving changes, and what to run after downtime.
// robfig/cron parses the fields and steps through wall-clock time; the
// mapping to instants is this package's own (robfig's own Next skips
// spring-forward slots and fires fall-back slots twice).
package schedule

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	_ "time/tzdata" // IANA zones on hosts without zoneinfo

	"github.com/robfig/cron/v3"
)

// fields are the five cron fields, in order, with their ranges.
var fields = []struct{ name, rng string }{
	{"minute", "0-59"},
	{"hour", "0-23"},
	{"day-of-month", "1-31"},
	{"month", "1-12 or JAN-DEC"},
	{"day-of-week", "0-6 or SUN-SAT"},
}

var parser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// CronError is a cron that does not parse: the byte offset in the cron
// text of the field at fault, and what, with the fix.
type CronError struct {
	Offset  int
	Message string
}

func (e *CronError) Error() string { return e.Message }

// Cron is a parsed 5-field cron expression.
type Cron struct {
	Text string
	spec *cron.SpecSchedule
}

var outOfRange = regexp.MustCompile(`(above maximum|below minimum|beyond end of range)`)

// ParseCron parses a 5-field cron (minute hour day-of-month month
// day-of-week). Descriptors (@daily), seconds fields and TZ= prefixes are
// refused with what to write instead.
func ParseCron(text string) (*Cron, *CronError) {
	t := strings.TrimSpace(text)
	lead := strings.Index(text, t)
	switch {
	case t == "":
		return nil, &CronError{Message: "the cron is empty: write 5 fields, minute hour day-of-month month day-of-week, e.g. \"30 9 * * 1-5\""}
	case strings.HasPrefix(t, "@"):
		return nil, &CronError{Offset: lead, Message: fmt.Sprintf("%q is a descriptor: write 5 fields instead (minute hour day-of-month month day-of-week), e.g. \"0 0 * * *\" for @daily", strings.Fields(t)[0])}
	case strings.HasPrefix(t, "TZ=") || strings.HasPrefix(t, "CRON_TZ="):
		return nil, &CronError{Offset: lead, Message: "a timezone goes in the schedule's timezone: key, not in the cron"}
	}
	parts, offs := splitFields(text)
	if len(parts) != 5 {
		msg := fmt.Sprintf("a cron has 5 fields (minute hour day-of-month month day-of-week), this one has %d", len(parts))
		if len(parts) == 6 {
			msg += ": seconds are not supported, schedules are at minute granularity"
		}
		return nil, &CronError{Offset: lead, Message: msg}
	}
	for i, p := range parts {
		probe := []string{"*", "*", "*", "*", "*"}
		probe[i] = p
		if _, err := parser.Parse(strings.Join(probe, " ")); err != nil {
			f := fields[i]
			msg := fmt.Sprintf("the %s field %q is out of range: %ss are %s", f.name, p, f.name, f.rng)
			if !outOfRange.MatchString(err.Error()) {
				why, _, _ := strings.Cut(err.Error(), ": strconv")
				msg = fmt.Sprintf("the %s field %q does not parse (%s): write a value, a range a-b, a list a,b or a step */n, within %s", f.name, p, why, f.rng)
			}
			return nil, &CronError{Offset: offs[i], Message: msg}
		}
	}
	s, err := parser.Parse(strings.Join(parts, " "))
	if err != nil {
		return nil, &CronError{Offset: lead, Message: err.Error()}
	}
	spec := s.(*cron.SpecSchedule)
	spec.Location = time.UTC // wall-clock time, see slots.go
	c := &Cron{Text: strings.Join(parts, " "), spec: spec}
	if c.nextWall(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)).IsZero() {
		return nil, &CronError{Offset: lead, Message: "this cron never fires (no such day, e.g. February 30): check the day-of-month and month fields"}
	}
	return c, nil
}

// splitFields splits a cron into its fields and their byte offsets.
func splitFields(s string) ([]string, []int) {
	var parts []string
	var offs []int
	for i := 0; i < len(s); {
		if s[i] == ' ' || s[i] == '\t' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' {
			j++
		}
		parts, offs = append(parts, s[i:j]), append(offs, i)
		i = j
	}
	return parts, offs
}

// nextWall is the first wall-clock slot strictly after wall (both are
// times in UTC standing for local wall-clock readings); zero if none
// within five years.
func (c *Cron) nextWall(wall time.Time) time.Time { return c.spec.Next(wall) }

// LoadZone loads an IANA timezone ("" is UTC). Abbreviations and offsets
// are refused: they have no daylight-saving rules.
func LoadZone(name string) (*time.Location, error) {
	if name == "" {
		return time.UTC, nil
	}
	if name == "Local" {
		return nil, fmt.Errorf("timezone %q is this machine's, not a zone: write an IANA name such as Europe/Berlin or UTC", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("unknown timezone %q: write an IANA name such as Europe/Berlin, America/New_York or UTC", name)
	}
	return loc, nil
}
