package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/termtext"
	"github.com/ainb/hive/client/tlspin"
	"github.com/ainb/hive/identity"
)

// Exit codes: the error contract of spec/cli.md. Every failure of every
// command goes through classify, the one mapper from errors to codes.
const (
	exitOK          = 0 // success
	exitUsage       = 1 // bad input: flags, arguments, files, values
	exitUnavailable = 2 // network error or hub unreachable (retry later)
	exitRefused     = 3 // authentication or permission refused
	exitNotFound    = 4 // a named file, key, channel, event or profile does not exist
	exitConflict    = 5 // conflict or duplicate: it exists already, or disagrees
	exitTimeout     = 6 // timed out, including a publish whose OK never came
)

// className names an exit code in --json errors.
func className(code int) string {
	switch code {
	case exitUnavailable:
		return "unreachable"
	case exitRefused:
		return "auth"
	case exitNotFound:
		return "not_found"
	case exitConflict:
		return "conflict"
	case exitTimeout:
		return "timeout"
	}
	return "bad_input"
}

// exitError carries the exit code of a failed command and the follow-up hint.
type exitError struct {
	code  int
	class string // overrides classes[code] ("delivery_unknown")
	hint  string
	err   error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// exitWith wraps err so that main exits with code. A nil err stays nil; an
// err that already carries a code keeps it.
func exitWith(code int, err error) error {
	if err == nil {
		return nil
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return &exitError{code: code, err: err}
}

// withHint adds the follow-up command to err's report.
func withHint(err error, hint string) error {
	if err == nil {
		return nil
	}
	e := classify(err)
	e.hint = hint
	return e
}

// usageErrorf is a bad-input error.
func usageErrorf(format string, args ...any) error {
	return exitWith(exitUsage, fmt.Errorf(format, args...))
}

// classify maps any error to its exit code, class and hint.
func classify(err error) *exitError {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee
	}
	e := &exitError{code: exitUsage, err: err}
	var mm *tlspin.MismatchError
	switch {
	case errors.Is(err, client.ErrDeliveryUnknown):
		e.code, e.class = exitTimeout, "delivery_unknown"
		e.hint = "the event may be stored: check with `hive read CHANNEL` before sending again"
	case errors.As(err, &mm):
		e.code, e.hint = exitRefused, pinHint("", mm)
	case errors.Is(err, client.ErrAuth), errors.Is(err, identity.ErrWrongPassphrase),
		errors.Is(err, identity.ErrKeyFilePermissions), errors.Is(err, fs.ErrPermission):
		e.code = exitRefused
		e.hint = "ask a hub admin to run `hive member add NPUB`, or check --key/--profile"
	case errors.Is(err, client.ErrDuplicate), errors.Is(err, identity.ErrKeyFileExists):
		e.code = exitConflict
	case errors.Is(err, client.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		e.code = exitNotFound
	case errors.Is(err, client.ErrRateLimited):
		e.code, e.hint = exitUnavailable, "wait a moment and run the command again"
	case errors.Is(err, client.ErrInvalid), errors.Is(err, identity.ErrPassphraseRequired):
		e.code = exitUsage
	case errors.Is(err, client.ErrUnreachable):
		e.code, e.hint = exitUnavailable, "is the hub running? check --hub or the profile (`hive profile list`)"
	case errors.Is(err, context.DeadlineExceeded):
		e.code = exitTimeout
	}
	return e
}

// pinHint is the fix for a pin mismatch: once the pin the hub presents is
// confirmed on the hub machine, the command that takes it.
func pinHint(profile string, mm *tlspin.MismatchError) string {
	const check = "if `hive status --data DIR` on the hub machine shows the pin the hub presented, "
	if profile == "" {
		return check + "give that one: --pin " + mm.Got
	}
	return check + "update the profile: `hive profile add " + profile + " --pin " + mm.Got + "`"
}

// report writes err to w (as one JSON object with asJSON) and returns the
// exit code.
func report(w io.Writer, asJSON bool, err error) int {
	e := classify(err)
	class := e.class
	if class == "" {
		class = className(e.code)
	}
	retryable := e.code == exitUnavailable || e.code == exitTimeout
	if asJSON {
		writeJSON(w, map[string]any{"error": class, "message": e.Error(), "retryable": retryable, "hint": e.hint})
	} else {
		w = termtext.NewWriter(w) // a refusal or a name in it may come from the hub
		fmt.Fprintf(w, "hive: %v\n", e)
		if e.hint != "" {
			fmt.Fprintf(w, "hint: %s\n", e.hint)
		}
	}
	return e.code
}
