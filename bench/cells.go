package main

import (
	"fmt"
	"strings"
	"time"
)

// The table's cells: measured values, how they are shown and compared.

func fmtDur(d time.Duration) string {
	if d < 0 {
		return "-"
	}
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case ms < 10:
		return fmt.Sprintf("%.2f ms", ms)
	case ms < 1000:
		return fmt.Sprintf("%.1f ms", ms)
	default:
		return fmt.Sprintf("%.2f s", ms/1000)
	}
}

// fmtMicros writes a per-event CPU time.
func fmtMicros(d time.Duration) string {
	return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
}

func fmtCount(n int) string {
	s := fmt.Sprint(n)
	if n < 10000 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// cell is one measured value: shown as text, compared by num.
type cell struct {
	text string
	num  float64
	ok   bool // has a value
}

func none() cell { return cell{text: "-"} }

func durCell(d time.Duration) cell {
	if d < 0 {
		return none()
	}
	return cell{fmtDur(d), float64(d), true}
}

func numCell(v float64, format string) cell { return cell{fmt.Sprintf(format, v), v, true} }

func intCell(n int) cell { return cell{fmtCount(n), float64(n), true} }

func fmtRatio(x float64) string {
	switch {
	case x >= 10:
		return fmt.Sprintf("%.0f×", x)
	case x >= 0.1:
		return fmt.Sprintf("%.2f×", x)
	default:
		return fmt.Sprintf("%.2g×", x)
	}
}

func importCell(r *serverResult) cell {
	switch {
	case r.ImportCached:
		return cell{text: "cached"}
	case r.Import == 0:
		return none()
	}
	return durCell(r.Import)
}

func othersCell(r *serverResult) cell {
	if r.Wall == 0 {
		return none()
	}
	return numCell(r.Others.Seconds()/r.Wall.Seconds(), "%.2f")
}

func loadCell(r *serverResult) cell {
	if r.Load[0] == "" {
		return none()
	}
	return cell{text: r.Load[0] + " → " + r.Load[1], ok: true}
}

// cpuCell is the CPU a workload used, by process, as cores busy over its wall time.
func cpuCell(r *serverResult, w string) cell {
	sp, ok := r.CPU[w]
	if !ok || sp.Wall == 0 {
		return none()
	}
	cores := func(d time.Duration) string { return fmt.Sprintf("%.2f", d.Seconds()/sp.Wall.Seconds()) }
	srv := cores(sp.Server)
	if sp.DB > 0 {
		srv += " + " + cores(sp.DB)
	}
	return cell{text: srv + " / " + cores(sp.Client) + " / " + cores(sp.Others), ok: true}
}

func memCell(r *serverResult) cell {
	if r.RSSEnd == 0 {
		return none()
	}
	return cell{fmt.Sprintf("%d / %d MB", r.RSSEnd/1024, r.HWMEnd/1024), 0, true}
}
