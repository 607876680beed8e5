package agentwatch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ainb/hive/client/observer"
	tea "github.com/charmbracelet/bubbletea"
)

// The model folds a permission request frame, shows it, and key 1 sends
// the request's first option as a permission control frame.
func TestModelAnswersPermission(t *testing.T) {
	var sent []observer.Control
	m := New(context.Background(), "agentkey12345678", nil, func(_ context.Context, c observer.Control) error {
		sent = append(sent, c)
		return nil
	})
	f := observer.Frame{V: 1, Seq: 1, Channel: "c1", Session: "s1", Turn: "t1", Dir: "in",
		Msg: json.RawMessage(`{"jsonrpc":"2.0","id":"p-7","method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1","title":"rm -rf build"},"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}}`)}
	next, _ := m.Update(frameMsg{f})
	m = next.(Model)
	if v := m.View(); !strings.Contains(v, "PERMISSION REQUESTED: rm -rf build") || !strings.Contains(v, "[1] Allow (allow_once)") {
		t.Fatalf("view:\n%s", v)
	}
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("1")})
	if cmd == nil {
		t.Fatal("key 1 sent nothing")
	}
	if msg := cmd(); msg != statusMsg("sent Allow for rm -rf build") {
		t.Fatalf("status %v", msg)
	}
	if len(sent) != 1 || sent[0].Type != observer.CtlPermission || sent[0].Option != "ok" || sent[0].Session != "s1" || string(sent[0].Request) != `"p-7"` {
		t.Fatalf("sent %+v", sent)
	}
}
