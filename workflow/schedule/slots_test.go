package schedule

import (
	"strings"
	"testing"
	"time"
)

func sched(t *testing.T, cron, zone string) *Schedule {
	t.Helper()
	c, cerr := ParseCron(cron)
	if cerr != nil {
		t.Fatalf("%q: %v", cron, cerr)
	}
	loc, err := LoadZone(zone)
	if err != nil {
		t.Fatal(err)
	}
	return New(c, loc)
}

func at(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// render is "local (utc) [gap|ambiguous]" per slot.
func render(slots []Slot) string {
	var b []string
	for _, s := range slots {
		x := s.At.Format("2006-01-02T15:04-07:00 MST") + " " + s.At.UTC().Format("15:04Z")
		if s.Gap {
			x += " gap:" + s.Wall.Format("15:04")
		}
		if s.Ambiguous {
			x += " ambiguous"
		}
		b = append(b, x)
	}
	return strings.Join(b, "\n")
}

func TestSlotsAcrossDST(t *testing.T) {
	for _, tc := range []struct {
		name, cron, zone, from string
		n                      int
		want                   []string
	}{
		{"berlin spring forward: 02:30 does not exist, fires at 03:00 CEST", "30 2 * * *", "Europe/Berlin", "2026-03-28T00:00:00+01:00", 3, []string{
			"2026-03-28T02:30+01:00 CET 01:30Z",
			"2026-03-29T03:00+02:00 CEST 01:00Z gap:02:30",
			"2026-03-30T02:30+02:00 CEST 00:30Z"}},
		{"berlin spring forward: every slot of the gap hour fires once, at its end", "*/20 2,3 29 3 *", "Europe/Berlin", "2026-03-29T00:00:00+01:00", 6, []string{
			"2026-03-29T03:00+02:00 CEST 01:00Z gap:02:00",
			"2026-03-29T03:00+02:00 CEST 01:00Z gap:02:20",
			"2026-03-29T03:00+02:00 CEST 01:00Z gap:02:40",
			"2026-03-29T03:00+02:00 CEST 01:00Z",
			"2026-03-29T03:20+02:00 CEST 01:20Z",
			"2026-03-29T03:40+02:00 CEST 01:40Z"}},
		{"berlin fall back: 02:30 occurs twice, fires at the first", "30 2 * * *", "Europe/Berlin", "2026-10-24T00:00:00+02:00", 3, []string{
			"2026-10-24T02:30+02:00 CEST 00:30Z",
			"2026-10-25T02:30+02:00 CEST 00:30Z ambiguous",
			"2026-10-26T02:30+01:00 CET 01:30Z"}},
		{"berlin fall back: the repeated hour's slots fire once each", "*/30 2 * * *", "Europe/Berlin", "2026-10-25T00:00:00+02:00", 3, []string{
			"2026-10-25T02:00+02:00 CEST 00:00Z ambiguous",
			"2026-10-25T02:30+02:00 CEST 00:30Z ambiguous",
			"2026-10-26T02:00+01:00 CET 01:00Z"}},
		{"new york spring forward", "30 2 * * *", "America/New_York", "2026-03-07T12:00:00-05:00", 2, []string{
			"2026-03-08T03:00-04:00 EDT 07:00Z gap:02:30",
			"2026-03-09T02:30-04:00 EDT 06:30Z"}},
		{"new york fall back: 01:30 once", "30 1 * * *", "America/New_York", "2026-10-31T12:00:00-04:00", 2, []string{
			"2026-11-01T01:30-04:00 EDT 05:30Z ambiguous",
			"2026-11-02T01:30-05:00 EST 06:30Z"}},
		{"new york fall back: from inside the second 01:xx, the first's slots are past", "*/30 1 * * *", "America/New_York", "2026-11-01T01:10:00-05:00", 1, []string{
			"2026-11-02T01:00-05:00 EST 06:00Z"}},
		{"new york: a slot outside the changes is plain", "0 9 * * 1-5", "America/New_York", "2026-03-06T09:00:00-05:00", 2, []string{
			"2026-03-06T09:00-05:00 EST 14:00Z",
			"2026-03-09T09:00-04:00 EDT 13:00Z"}},
		{"UTC by default", "0 0 1 * *", "", "2026-01-15T00:00:00Z", 2, []string{
			"2026-02-01T00:00+00:00 UTC 00:00Z",
			"2026-03-01T00:00+00:00 UTC 00:00Z"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := render(sched(t, tc.cron, tc.zone).Slots(at(t, tc.from), tc.n))
			if want := strings.Join(tc.want, "\n"); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// A slot's id is its wall-clock minute: the three gap slots above are three
// slots, and one ambiguous slot is one.
func TestSlotIDs(t *testing.T) {
	s := sched(t, "*/20 2 29 3 *", "Europe/Berlin").Slots(at(t, "2026-03-29T00:00:00+01:00"), 3)
	ids := []string{s[0].ID(), s[1].ID(), s[2].ID()}
	want := []string{"2026-03-29T02:00 Europe/Berlin", "2026-03-29T02:20 Europe/Berlin", "2026-03-29T02:40 Europe/Berlin"}
	if strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Errorf("ids %v", ids)
	}
}

func TestDueAfterDowntime(t *testing.T) {
	hourly := sched(t, "0 * * * *", "UTC")
	for _, tc := range []struct {
		name           string
		s              *Schedule
		last, now      string
		maxLate        time.Duration
		run            string // "" for none
		skipped        int
		oldest, newest string
	}{
		{"downtime longer than max_late: the newest runs, the rest skipped", hourly, "2026-05-01T00:30:00Z", "2026-05-01T05:10:00Z", time.Hour,
			"2026-05-01T05:00 UTC", 4, "2026-05-01T01:00 UTC", "2026-05-01T04:00 UTC"},
		{"the newest is older than max_late: nothing runs", hourly, "2026-05-01T00:30:00Z", "2026-05-01T05:10:00Z", 5 * time.Minute,
			"", 5, "2026-05-01T01:00 UTC", "2026-05-01T05:00 UTC"},
		{"a slot exactly max_late old still runs", hourly, "2026-05-01T04:30:00Z", "2026-05-01T06:00:00Z", time.Hour,
			"2026-05-01T06:00 UTC", 1, "2026-05-01T05:00 UTC", "2026-05-01T05:00 UTC"},
		{"nothing due", hourly, "2026-05-01T05:00:00Z", "2026-05-01T05:59:59Z", time.Hour, "", 0, "", ""},
		{"the gap slot is due at the gap's end", sched(t, "30 2 * * *", "Europe/Berlin"), "2026-03-28T12:00:00+01:00", "2026-03-29T03:10:00+02:00", time.Hour,
			"2026-03-29T02:30 Europe/Berlin", 0, "", ""},
		{"the repeated hour: its slots are due once", sched(t, "*/30 2 * * *", "Europe/Berlin"), "2026-10-25T01:59:00+02:00", "2026-10-25T02:45:00+01:00", 2 * time.Hour,
			"2026-10-25T02:30 Europe/Berlin", 1, "2026-10-25T02:00 Europe/Berlin", "2026-10-25T02:00 Europe/Berlin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.s.Due(at(t, tc.last), at(t, tc.now), tc.maxLate)
			id := func(s *Slot) string {
				if s == nil {
					return ""
				}
				return s.ID()
			}
			if id(c.Run) != tc.run || c.Skipped != tc.skipped || id(c.Oldest) != tc.oldest || id(c.Newest) != tc.newest {
				t.Errorf("run %q skipped %d (%q..%q), want %q %d (%q..%q)", id(c.Run), c.Skipped, id(c.Oldest), id(c.Newest), tc.run, tc.skipped, tc.oldest, tc.newest)
			}
		})
	}
}

func TestParseCronErrors(t *testing.T) {
	for _, tc := range []struct {
		cron string
		off  int
		msg  string
	}{
		{"* * *", 0, "a cron has 5 fields (minute hour day-of-month month day-of-week), this one has 3"},
		{"0 * * * * *", 0, "a cron has 5 fields (minute hour day-of-month month day-of-week), this one has 6: seconds are not supported, schedules are at minute granularity"},
		{"61 * * * *", 0, `the minute field "61" is out of range: minutes are 0-59`},
		{"0 24 * * *", 2, `the hour field "24" is out of range: hours are 0-23`},
		{"0  9 * * MON-FRX", 9, `the day-of-week field "MON-FRX" does not parse (failed to parse int from FRX): write a value, a range a-b, a list a,b or a step */n, within 0-6 or SUN-SAT`},
		{"0 0 30 2 *", 0, "this cron never fires (no such day, e.g. February 30): check the day-of-month and month fields"},
		{"@daily", 0, `"@daily" is a descriptor: write 5 fields instead`},
		{"CRON_TZ=UTC 0 0 * * *", 0, "a timezone goes in the schedule's timezone: key, not in the cron"},
	} {
		_, err := ParseCron(tc.cron)
		if err == nil || err.Offset != tc.off || !strings.HasPrefix(err.Message, tc.msg) {
			t.Errorf("%q: %+v, want offset %d %q", tc.cron, err, tc.off, tc.msg)
		}
	}
	if _, err := LoadZone("Europe/Berlln"); err == nil || err.Error() != `unknown timezone "Europe/Berlln": write an IANA name such as Europe/Berlin, America/New_York or UTC` {
		t.Errorf("zone: %v", err)
	}
}
