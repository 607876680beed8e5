package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/ainb/hive/pairing"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// pairUI is the human side of `hive pair` and `hive join`: a terminal
// (QR code, spinner, large SAS, y/n prompt) or, with --json, NDJSON events
// on stdout and answers read as lines on stdin.
type pairUI struct {
	cmd  *cobra.Command
	json bool
	png  string // pair: also write the QR code here

	mu   sync.Mutex
	spin chan struct{} // closed to stop the spinner
	spun chan struct{} // closed by the spinner once it has erased its line
}

func newPairUI(cmd *cobra.Command, png string) *pairUI {
	return &pairUI{cmd: cmd, json: jsonOutput(cmd), png: png}
}

func (u *pairUI) event(v map[string]any) {
	if u.json {
		output(u.cmd, v, nil)
	}
}

func (u *pairUI) say(format string, args ...any) {
	if !u.json {
		fmt.Fprintf(u.cmd.OutOrStdout(), format, args...)
	}
}

// ShowURI shows the QR code and the URI, then a spinner while waiting.
func (u *pairUI) ShowURI(uri string) {
	if u.png != "" {
		if png, err := pairing.QRPNG(uri, 8); err == nil {
			if err := os.WriteFile(u.png, png, 0o600); err != nil {
				fmt.Fprintf(u.cmd.ErrOrStderr(), "hive: writing %s: %v\n", u.png, err)
			}
		}
	}
	u.event(map[string]any{"event": "uri", "uri": uri})
	if qr, err := pairing.QRTerminal(uri); err == nil {
		u.say("%s\n", qr)
	}
	u.say("Scan this code with `hive join --qr`, or run on the new device:\n\n  hive join '%s'\n\n", uri)
	if u.png != "" {
		u.say("(QR code also written to %s)\n", u.png)
	}
	u.startSpinner("waiting for the other device")
}

// ShowSAS shows the six digits large.
func (u *pairUI) ShowSAS(sas string) {
	u.stopSpinner()
	u.event(map[string]any{"event": "sas", "sas": sas})
	u.say("\nCompare this code with the other screen:\n\n%s\n            %s %s\n\n", bigDigits(sas), sas[:3], sas[3:])
}

// Confirm asks whether both screens show the same code. It reads one line
// of stdin, and nothing after it (a passphrase prompt may follow). The
// reading goroutine ends with that line or at end of input; a pairing that
// ends first leaves it to the process's exit.
func (u *pairUI) Confirm() <-chan bool {
	u.say("Same code on both screens? [y/N] ")
	ans := make(chan bool, 1)
	go func() {
		line, err := readLine(u.cmd.InOrStdin())
		l := strings.ToLower(strings.TrimSpace(line))
		ans <- (err == nil || line != "") && (l == "y" || l == "yes")
	}()
	return ans
}

// readLine reads up to and including the next newline, byte by byte, so
// that nothing beyond the line is consumed.
func readLine(r io.Reader) (string, error) {
	var b strings.Builder
	var c [1]byte
	for {
		n, err := r.Read(c[:])
		if n == 1 {
			if c[0] == '\n' {
				return b.String(), nil
			}
			b.WriteByte(c[0])
		}
		if err != nil {
			return b.String(), err
		}
	}
}

// done reports success: the NDJSON done event or text.
func (u *pairUI) done(v map[string]any, text string) error {
	u.stopSpinner()
	v["event"] = "done"
	if u.json {
		return output(u.cmd, v, nil)
	}
	_, err := fmt.Fprintf(u.cmd.OutOrStdout(), "\n%s\n", text)
	return err
}

// fail reports err as the final NDJSON error event and returns it.
func (u *pairUI) fail(err error) error {
	u.stopSpinner()
	e := classify(err)
	u.event(map[string]any{"event": "error", "error": e.Error(), "code": e.code})
	u.say("\n")
	return e
}

func (u *pairUI) startSpinner(label string) {
	f, ok := u.cmd.ErrOrStderr().(*os.File)
	if u.json || !ok || !term.IsTerminal(int(f.Fd())) {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	stop, done := make(chan struct{}), make(chan struct{})
	u.spin, u.spun = stop, done
	go spinner(f, label, stop, done)
}

// stopSpinner stops the spinner and waits until it has erased its line, so
// that nothing printed after it (the SAS, the prompt) is overwritten.
func (u *pairUI) stopSpinner() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.spin != nil {
		close(u.spin)
		<-u.spun
		u.spin, u.spun = nil, nil
	}
}

func spinner(w io.Writer, label string, stop, done chan struct{}) {
	defer close(done)
	frames := `|/-\`
	t := time.NewTicker(150 * time.Millisecond)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-stop:
			fmt.Fprintf(w, "\r%s\r", strings.Repeat(" ", len(label)+4))
			return
		case <-t.C:
			fmt.Fprintf(w, "\r%c %s", frames[i%len(frames)], label)
		}
	}
}

// digitFont draws 0-9 five rows high.
var digitFont = [10][5]string{
	{"█████", "█   █", "█   █", "█   █", "█████"},
	{"  █  ", " ██  ", "  █  ", "  █  ", " ███ "},
	{"█████", "    █", "█████", "█    ", "█████"},
	{"█████", "    █", " ████", "    █", "█████"},
	{"█   █", "█   █", "█████", "    █", "    █"},
	{"█████", "█    ", "█████", "    █", "█████"},
	{"█████", "█    ", "█████", "█   █", "█████"},
	{"█████", "    █", "   █ ", "  █  ", "  █  "},
	{"█████", "█   █", "█████", "█   █", "█████"},
	{"█████", "█   █", "█████", "    █", "█████"},
}

// bigDigits renders a six-digit code as "ddd ddd" in large digits.
func bigDigits(code string) string {
	var b strings.Builder
	for row := 0; row < 5; row++ {
		b.WriteString("  ")
		for i, c := range code {
			if i == 3 {
				b.WriteString("   ")
			}
			if c >= '0' && c <= '9' {
				b.WriteString(digitFont[c-'0'][row])
			}
			b.WriteString(" ")
		}
		b.WriteString("\n")
	}
	return b.String()
}
