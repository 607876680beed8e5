package main

import (
	"errors"
	"fmt"
)

// Exit codes of the hive command. main maps an *exitError to os.Exit(code);
// any other error exits with exitGeneric.
const (
	exitOK          = 0 // success
	exitGeneric     = 1 // any other failure
	exitUsage       = 2 // bad command line: missing or conflicting flags, bad arguments
	exitRefused     = 3 // authentication or permission refused (wrong passphrase, unsafe key file mode, AUTH denied)
	exitNotFound    = 4 // a named file, key, event or agent does not exist
	exitInvalid     = 5 // invalid input, or a verification that failed
	exitUnavailable = 6 // network error or hub unavailable
)

// exitError carries the process exit code of a failed command.
type exitError struct {
	code int
	err  error
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

// usageErrorf is exitWith(exitUsage, fmt.Errorf(...)).
func usageErrorf(format string, args ...any) error {
	return exitWith(exitUsage, fmt.Errorf(format, args...))
}
