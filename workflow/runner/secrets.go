package runner

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"sort"
	"strings"
)

// Redacted is what replaces a secret's value wherever the runner would
// show it: records, cards, notes, errors and its log.
const Redacted = "[redacted]"

// minSecret: shorter values are not redacted (they would blank ordinary
// words).
const minSecret = 4

// redactor replaces every secret value of minSecret bytes or more, in the
// forms a server echoing it back or an event's JSON would spell it:
// as it is, JSON-escaped, URL-escaped and base64.
type redactor struct {
	forms []string // longest first, so a longer form is replaced whole
}

func newRedactor(secrets map[string]string) redactor {
	seen := map[string]bool{}
	var forms []string
	add := func(s string) {
		if len(s) >= minSecret && !seen[s] {
			seen[s] = true
			forms = append(forms, s)
		}
	}
	for _, v := range secrets {
		if len(v) < minSecret {
			continue
		}
		add(v)
		if b, err := json.Marshal(v); err == nil {
			add(string(b[1 : len(b)-1]))
		}
		add(url.QueryEscape(v))
		add(url.PathEscape(v))
		add(base64.StdEncoding.EncodeToString([]byte(v)))
		add(base64.RawURLEncoding.EncodeToString([]byte(v)))
	}
	sort.Slice(forms, func(i, j int) bool { return len(forms[i]) > len(forms[j]) })
	return redactor{forms: forms}
}

func (x redactor) redact(s string) string {
	for _, f := range x.forms {
		s = strings.ReplaceAll(s, f, Redacted)
	}
	return s
}

// redact replaces every secret in s.
func (r *Runner) redact(s string) string { return r.redactor.redact(s) }

// redactErr is err with every secret in its text replaced (nil stays nil).
func (r *Runner) redactErr(err error) error {
	if err == nil {
		return nil
	}
	if s := r.redact(err.Error()); s != err.Error() {
		return errors.New(s)
	}
	return err
}
