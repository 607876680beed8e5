package test

import (
	"strings"
	"testing"
)

func scheduleFile(t *testing.T, cron, zone string) string {
	return workflowFile(t, "sched", "name: s\nchannel: ops\non:\n  schedule:\n    - cron: \""+cron+"\"\n      timezone: "+zone+"\nsteps:\n  - id: a\n    post: hi\n")
}

// hive workflow next through the real binary across both DST changes of
// Europe/Berlin and America/New_York: each wall-clock slot fires once, a
// gap slot when the gap ends, an ambiguous slot at its first occurrence.
func TestWorkflowNextAcrossDST(t *testing.T) {
	for _, tc := range []struct {
		name, cron, zone, from, count string
		want                          []string
	}{
		{"berlin spring forward", "30 2 * * *", "Europe/Berlin", "2026-03-28T00:00:00+01:00", "3", []string{
			`{"local":"2026-03-28T02:30:00+01:00","utc":"2026-03-28T01:30:00Z","zone":"Europe/Berlin","slot":"2026-03-28T02:30","cron":"30 2 * * *"}`,
			`{"local":"2026-03-29T03:00:00+02:00","utc":"2026-03-29T01:00:00Z","zone":"Europe/Berlin","slot":"2026-03-29T02:30","cron":"30 2 * * *"}`,
			`{"local":"2026-03-30T02:30:00+02:00","utc":"2026-03-30T00:30:00Z","zone":"Europe/Berlin","slot":"2026-03-30T02:30","cron":"30 2 * * *"}`}},
		{"berlin fall back", "*/30 2 * * *", "Europe/Berlin", "2026-10-25T00:00:00+02:00", "3", []string{
			`{"local":"2026-10-25T02:00:00+02:00","utc":"2026-10-25T00:00:00Z","zone":"Europe/Berlin","slot":"2026-10-25T02:00","cron":"*/30 2 * * *"}`,
			`{"local":"2026-10-25T02:30:00+02:00","utc":"2026-10-25T00:30:00Z","zone":"Europe/Berlin","slot":"2026-10-25T02:30","cron":"*/30 2 * * *"}`,
			`{"local":"2026-10-26T02:00:00+01:00","utc":"2026-10-26T01:00:00Z","zone":"Europe/Berlin","slot":"2026-10-26T02:00","cron":"*/30 2 * * *"}`}},
		{"new york spring forward", "30 2 * * *", "America/New_York", "2026-03-07T12:00:00-05:00", "2", []string{
			`{"local":"2026-03-08T03:00:00-04:00","utc":"2026-03-08T07:00:00Z","zone":"America/New_York","slot":"2026-03-08T02:30","cron":"30 2 * * *"}`,
			`{"local":"2026-03-09T02:30:00-04:00","utc":"2026-03-09T06:30:00Z","zone":"America/New_York","slot":"2026-03-09T02:30","cron":"30 2 * * *"}`}},
		{"new york fall back", "30 1 * * *", "America/New_York", "2026-10-31T12:00:00-04:00", "2", []string{
			`{"local":"2026-11-01T01:30:00-04:00","utc":"2026-11-01T05:30:00Z","zone":"America/New_York","slot":"2026-11-01T01:30","cron":"30 1 * * *"}`,
			`{"local":"2026-11-02T01:30:00-05:00","utc":"2026-11-02T06:30:00Z","zone":"America/New_York","slot":"2026-11-02T01:30","cron":"30 1 * * *"}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := scheduleFile(t, tc.cron, tc.zone)
			stdout, stderr, code := hiveOutErr(t, "workflow", "next", path, "--from", tc.from, "--count", tc.count, "--json")
			if want := strings.Join(tc.want, "\n") + "\n"; code != 0 || stdout != want {
				t.Fatalf("exit %d, stderr %s\ngot\n%swant\n%s", code, stderr, stdout, want)
			}
		})
	}
	// the text form says which slots the clock change moves
	stdout, _, code := hiveOutErr(t, "workflow", "next", scheduleFile(t, "30 2 * * *", "Europe/Berlin"), "--from", "2026-03-29T00:00:00+01:00", "--count", "1")
	if want := "Sun 2026-03-29 03:00 CEST +02:00  2026-03-29T01:00:00Z  Europe/Berlin  30 2 * * *  (02:30 is skipped by the clock change: fires when it ends)\n"; code != 0 || stdout != want {
		t.Errorf("text: exit %d\n%q\nwant\n%q", code, stdout, want)
	}
	stdout, _, _ = hiveOutErr(t, "workflow", "next", scheduleFile(t, "30 1 * * *", "America/New_York"), "--from", "2026-11-01T00:00:00-04:00", "--count", "1")
	if want := "Sun 2026-11-01 01:30 EDT -04:00  2026-11-01T05:30:00Z  America/New_York  30 1 * * *  (01:30 happens twice: fires at the first)\n"; stdout != want {
		t.Errorf("text: %q\nwant\n%q", stdout, want)
	}
}

func TestWorkflowNextBadInput(t *testing.T) {
	sched := scheduleFile(t, "0 9 * * *", "UTC")
	manual := workflowFile(t, "manual", "name: m\nchannel: ops\non:\n  manual: {}\nsteps:\n  - id: a\n    post: hi\n")
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{sched, "--from", "tomorrow"}, 1, `hive: --from "tomorrow" is not an RFC 3339 time: write e.g. 2026-03-29T00:00:00+01:00 or 2026-03-29T00:00:00Z`},
		{[]string{sched, "--count", "0"}, 1, "hive: --count 0: it is 1 to 1000"},
		{[]string{manual}, 1, "hive: workflow m has no schedule trigger: next shows the slots of on: schedule:"},
	} {
		_, stderr, code := hiveOutErr(t, append([]string{"workflow", "next"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.msg+"\n") {
			t.Errorf("%v: exit %d %q, want %d %q", tc.args, code, stderr, tc.code, tc.msg)
		}
	}
}
