package chatui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// KeysFile is the key configuration file in $HIVE_HOME.
const KeysFile = "chat-keys.toml"

// action is one thing a key does, with its default keys and help.
type action struct {
	name string
	keys []string
	help string
}

// actions are every rebindable action, in the order the help lists them.
func actions() []action {
	return []action{
		{"send", []string{"enter"}, "send the message (or run the /command)"},
		{"newline", []string{"alt+enter", "ctrl+j"}, "new line in the composer (also Shift-Enter where the terminal tells it apart)"},
		{"editor", []string{"alt+e"}, "write the message in $VISUAL or $EDITOR"},
		{"complete", []string{"tab"}, "complete @name or /command (again: the next match)"},
		{"edit_last", []string{"up"}, "edit your last message (on an empty composer)"},
		{"next_channel", []string{"ctrl+n", "alt+down"}, "next channel"},
		{"prev_channel", []string{"ctrl+p", "alt+up"}, "previous channel"},
		{"next_unread", []string{"alt+a", "ctrl+x"}, "next channel with unread messages (mentions first)"},
		{"focus", []string{"ctrl+o"}, "move focus: composer, timeline (Enter opens a thread; a / d approve or deny an approval request that mentions you), sidebar"},
		{"select_up", []string{"ctrl+up", "alt+k"}, "select the message above"},
		{"select_down", []string{"ctrl+down", "alt+j"}, "select the message below"},
		{"agent", []string{"ctrl+g"}, "open the agent pane (your agent's live transcript; 1-9 answer a permission request)"},
		{"thread", []string{"ctrl+t"}, "open the thread of the selected (else last) message"},
		{"find", []string{"ctrl+f"}, "find in the open channel's loaded messages: type, Enter or Up the next older match, Down or Alt-Enter the newer, Esc back (/search searches the hub)"},
		{"page_up", []string{"pgup"}, "scroll up a page (loads older history at the top)"},
		{"page_down", []string{"pgdown"}, "scroll down a page"},
		{"bottom", []string{"end"}, "jump to the newest message"},
		{"close", []string{"esc"}, "close help, the thread, an edit or a completion"},
		{"help", []string{"f1"}, "this help (also ? on an empty composer)"},
		{"quit", []string{"ctrl+c", "ctrl+d"}, "quit"},
	}
}

// KeyMap binds each action to its keys.
type KeyMap map[string]key.Binding

// DefaultKeys is the key map without a configuration file.
func DefaultKeys() KeyMap {
	km := KeyMap{}
	for _, a := range actions() {
		km[a.name] = key.NewBinding(key.WithKeys(a.keys...), key.WithHelp(strings.Join(a.keys, " / "), a.help))
	}
	return km
}

// LoadKeys reads $HIVE_HOME/chat-keys.toml over the defaults: a [keys]
// table of action = ["key", ...]. A missing file is the defaults.
func LoadKeys(home string) (KeyMap, error) {
	km := DefaultKeys()
	path := filepath.Join(home, KeysFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return km, nil
	}
	if err != nil {
		return nil, err
	}
	var f struct{ Keys map[string][]string }
	if err := toml.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	all := actions()
	for name, keys := range f.Keys {
		i := slices.IndexFunc(all, func(a action) bool { return a.name == name })
		if i < 0 {
			return nil, fmt.Errorf("%s: no action %q (actions: %s)", path, name, actionNames())
		}
		if len(keys) == 0 {
			return nil, fmt.Errorf("%s: action %q has no keys: give at least one, e.g. %s = [%q]", path, name, name, all[i].keys[0])
		}
		km[name] = key.NewBinding(key.WithKeys(keys...), key.WithHelp(strings.Join(keys, " / "), all[i].help))
	}
	return km, nil
}

func actionNames() string {
	var out []string
	for _, a := range actions() {
		out = append(out, a.name)
	}
	return strings.Join(out, ", ")
}

// is reports whether msg is one of the keys of action name. Several runes
// in one message are typed text (fast typing, a paste), never a key name:
// "down" typed is not the arrow.
func (km KeyMap) is(msg tea.KeyMsg, name string) bool {
	if typed(msg) {
		return false
	}
	return slices.Contains(km[name].Keys(), msg.String())
}

// typed reports whether msg is text of several runes.
func typed(msg tea.KeyMsg) bool { return msg.Type == tea.KeyRunes && (len(msg.Runes) > 1 || msg.Paste) }

// helpLines are the key help, one action a line.
func (km KeyMap) helpLines() []string {
	var out []string
	for _, a := range actions() {
		h := km[a.name].Help()
		out = append(out, fmt.Sprintf("%-22s %s", h.Key, h.Desc))
	}
	return out
}
