package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/tlspin"
	"github.com/ainb/hive/identity"
)

// The one mapper: each error class gets its exit code and JSON class.
func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err   error
		code  int
		class string
	}{
		{fmt.Errorf("x: %w", client.ErrDeliveryUnknown), exitTimeout, "delivery_unknown"},
		{&client.RefusedError{Prefix: "restricted", Reason: "restricted: no"}, exitRefused, "auth"},
		{&client.RefusedError{Prefix: "duplicate", Reason: "duplicate: have it"}, exitConflict, "conflict"},
		{&client.RefusedError{Prefix: "blocked", Reason: "blocked: deleted"}, exitConflict, "conflict"},
		{&client.RefusedError{Prefix: "invalid", Reason: "invalid: bad"}, exitUsage, "bad_input"},
		{&client.RefusedError{Prefix: "rate-limited", Reason: "rate-limited: slow"}, exitUnavailable, "unreachable"},
		{&tlspin.MismatchError{Want: "a", Got: "b"}, exitRefused, "auth"},
		{fmt.Errorf("load: %w", identity.ErrWrongPassphrase), exitRefused, "auth"},
		{fmt.Errorf("open: %w", os.ErrNotExist), exitNotFound, "not_found"},
		{fmt.Errorf("dial: %w", client.ErrUnreachable), exitUnavailable, "unreachable"},
		{context.DeadlineExceeded, exitTimeout, "timeout"},
		{errors.New("anything else"), exitUsage, "bad_input"},
		{exitWith(exitConflict, errors.New("explicit")), exitConflict, "conflict"},
	} {
		var buf bytes.Buffer
		code := report(&buf, true, tc.err)
		var out struct {
			Error, Message, Hint string
			Retryable            bool
		}
		if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
			t.Fatalf("%v: not JSON: %q", tc.err, buf.String())
		}
		if code != tc.code || out.Error != tc.class || out.Message != tc.err.Error() || out.Retryable != (code == exitUnavailable || code == exitTimeout) {
			t.Errorf("%v: exit %d %+v, want %d %s", tc.err, code, out, tc.code, tc.class)
		}
	}
}

func TestLoopbackAndLabels(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:7447": true, "[::1]:1": true, "localhost:1": true, "0.0.0.0:7447": false, "10.0.0.1:1": false, "nonsense": false} {
		if loopback(addr) != want {
			t.Errorf("loopback(%q) = %v", addr, !want)
		}
	}
	if prefixLabel("restricted: no") != "restricted" || prefixLabel("no prefix here") != "other" {
		t.Error("prefixLabel")
	}
	if k, p := kindLabels(9); k != "9" || p != "content" {
		t.Errorf("kind 9: %s %s", k, p)
	}
	if k, _ := kindLabels(31337); k != "other" {
		t.Errorf("unregistered kind labelled %s", k)
	}
}
