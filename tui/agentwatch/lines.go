package agentwatch

import (
	"fmt"
	"strings"
	"time"

	"github.com/ainb/hive/client/observer"
)

// EventLine renders one transcript change as a line (the watch without a
// terminal).
func EventLine(ev observer.Event) string {
	where := ""
	if ev.Turn != nil {
		where = ev.Turn.Channel + " " + Prefix8(ev.Turn.Turn) + " "
	}
	text := strings.ReplaceAll(ev.Text, "\n", " ")
	if ev.Kind == "permission" && ev.Turn != nil {
		pv := ev.Turn.Permissions[len(ev.Turn.Permissions)-1]
		var opts []string
		for _, o := range pv.Options {
			opts = append(opts, o.ID+"="+o.Kind)
		}
		text = fmt.Sprintf("%s (request %s, session %s; options %s)", text, pv.Request, pv.Session, strings.Join(opts, ", "))
	}
	return fmt.Sprintf("%s %s%s: %s", time.Now().Format("15:04:05"), where, ev.Kind, text)
}

// Prefix8 is the first 8 characters of an id.
func Prefix8(s string) string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}
