package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// What the benchmark reads about processes and the machine from /proc.

// procMem reads VmRSS and VmHWM (KiB) of a process.
func procMem(pid int) (rss, hwm int64) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		field := func() int64 {
			fs := strings.Fields(line)
			if len(fs) < 2 {
				return 0
			}
			v, _ := strconv.ParseInt(fs[1], 10, 64)
			return v
		}
		switch {
		case strings.HasPrefix(line, "VmRSS:"):
			rss = field()
		case strings.HasPrefix(line, "VmHWM:"):
			hwm = field()
		}
	}
	return
}

// resetHWM resets VmHWM to the current RSS (Linux >= 4.0).
func resetHWM(pid int) error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// procStat is the fields of /proc/PID/stat after the command name (which is in parentheses and
// may hold spaces): [0] is the state, [1] the parent's pid, [11] to [14] utime, stime, cutime and
// cstime in clock ticks. nil when the process is gone.
func procStat(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	return strings.Fields(s)
}

func statInt(f []string, i int) int64 {
	n, _ := strconv.ParseInt(f[i], 10, 64)
	return n
}

// procCPU is the user+system CPU time a process used so far.
func procCPU(pid int) time.Duration {
	f := procStat(pid)
	if len(f) < 13 {
		return 0
	}
	return time.Duration(statInt(f, 11)+statInt(f, 12)) * time.Second / 100 // USER_HZ
}

// selfCPU is the CPU time the benchmark process itself used so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// machineBusy is the CPU time all processes of the machine used so far (from /proc/stat).
func machineBusy() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0
	}
	var busy int64
	for i, v := range f[1:] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		busy += n
	}
	return time.Duration(busy) * time.Second / 100
}

// waitQuiet waits, at most maxWait, until the processes other than the benchmark and those
// ours measures (the servers under test) use less than 20% of one core over a second, and
// returns the last share seen.
func waitQuiet(ours func() time.Duration, maxWait time.Duration) float64 {
	deadline := time.Now().Add(maxWait)
	for {
		m0, s0, p0 := machineBusy(), selfCPU(), ours()
		time.Sleep(time.Second)
		others := (machineBusy() - m0) - (selfCPU() - s0) - (ours() - p0)
		share := max(0, others.Seconds())
		if share < 0.2 || time.Now().After(deadline) {
			return share
		}
	}
}

// loadAvg is the machine's 1-, 5- and 15-minute load averages as /proc/loadavg gives them.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// procWritten is the number of bytes a process passed to write-like syscalls so far (wchar in
// /proc/PID/io: files and sockets alike).
func procWritten(pid int) int64 { return procIO(pid, "wchar") }

// procStored is what the process caused to be written to storage so far (/proc/PID/io
// write_bytes: file pages it dirtied, the WAL's and the database's, not its sockets).
func procStored(pid int) int64 { return procIO(pid, "write_bytes") }

// procIO is one counter of /proc/PID/io (0 if unreadable).
func procIO(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+": "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}
