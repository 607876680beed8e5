package chatui

import "github.com/ainb/hive/client/termtext"

// clean makes untrusted text (message content, names, reasons) safe to put
// on a terminal: the shared sanitiser's Strip (escape sequences dropped
// whole, other controls and bidirectional overrides dropped, a tab as a
// space; newlines kept only when multiline).
func clean(s string, multiline bool) string { return termtext.Strip(s, multiline) }

// bidi reports the bidirectional controls that can reorder what a line
// shows (Trojan Source).
func bidi(r rune) bool { return termtext.Bidi(r) }
