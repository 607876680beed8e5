package chatui

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// editedMsg is the end of $EDITOR on the composer's text.
type editedMsg struct {
	text string
	err  error
}

// openEditor runs the member's editor (Options.Editor, a command line) on
// the composer's text in a file; the terminal is the editor's until it
// exits, then the file's text is the composer's (Enter sends it).
func (m *Model) openEditor() tea.Cmd {
	if strings.TrimSpace(m.opt.Editor) == "" {
		m.say(true, "no editor: set $VISUAL or $EDITOR")
		return nil
	}
	f, err := os.CreateTemp("", "hive-chat-*.md")
	if err != nil {
		m.say(true, "editor: "+err.Error())
		return nil
	}
	path := f.Name()
	_, err = f.WriteString(m.composer.Value())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		m.say(true, "editor: "+err.Error())
		return nil
	}
	args := strings.Fields(m.opt.Editor)
	cmd := exec.Command(args[0], append(args[1:], path)...)
	return tea.ExecProcess(cmd, func(err error) tea.Msg {
		defer os.Remove(path)
		if err != nil {
			return editedMsg{err: fmt.Errorf("%s: %w", m.opt.Editor, err)}
		}
		b, err := os.ReadFile(path)
		return editedMsg{text: strings.TrimRight(string(b), "\n"), err: err}
	})
}

// edited puts the editor's text in the composer.
func (m *Model) edited(msg editedMsg) {
	if msg.err != nil {
		m.say(true, "editor: "+msg.err.Error())
		return
	}
	m.composer.SetValue(msg.text)
	m.say(false, "from the editor: Enter sends, Esc clears")
}

// shiftEnter reports Shift-Enter as terminals with extended keys send it
// (CSI 13;2u, or xterm's modifyOtherKeys CSI 27;2;13~), which bubbletea
// passes on as an unknown sequence; other terminals send Shift-Enter as
// Enter (Alt-Enter and Ctrl-J are a new line everywhere).
func shiftEnter(msg tea.Msg) bool {
	s, ok := msg.(fmt.Stringer)
	if !ok {
		return false
	}
	switch s.String() {
	case fmt.Sprintf("?CSI%+v?", []byte("13;2u")), fmt.Sprintf("?CSI%+v?", []byte("27;2;13~")):
		return true
	}
	return false
}
