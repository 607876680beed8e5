package main

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/ainb/hive/identity"
)

// A non-terminal input refuses to prompt and names the variable.
func TestTerminalPromptNeedsATerminal(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if _, err := terminalPrompt(f, &strings.Builder{}, "Passphrase: ", false)(); !errors.Is(err, identity.ErrPassphraseRequired) || !strings.Contains(err.Error(), identity.PassphraseEnv) {
		t.Fatalf("non-terminal prompt: %v", err)
	}
}
