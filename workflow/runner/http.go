package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/workflow"
	"github.com/ainb/hive/workflow/expression"
)

// Bounds of an http step's call (spec/workflows.md, "http").
const (
	HTTPTimeout     = 10 * time.Second
	HTTPMaxResponse = 1 << 20
	// httpKept is how much of a response's body the step keeps (its
	// record holds it, so that a resumed run sees the same).
	httpKept = expression.MaxRendered
)

// httpTimeout is HTTPTimeout; tests of the cap shorten it.
var httpTimeout = HTTPTimeout

// httpClient is the runner's client for http steps: no proxy, no
// redirects, every connection's address checked against allow_hosts.
func (r *Runner) httpClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           r.allow.dialer(),
			TLSHandshakeTimeout:   httpTimeout,
			ResponseHeaderTimeout: httpTimeout,
			MaxIdleConns:          4,
			IdleConnTimeout:       30 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// httpStep runs an http step: at least once, with Idempotency-Key
// <run>/<step>. It records the step running (what it calls), sends, then
// records the outcome with the status and the body; a runner stopped in
// between sends again on restart, with the same key. Every error it
// returns is redacted already.
func (r *Runner) httpStep(ctx, sctx context.Context, rn *run, st *workflow.Step, vals expression.Values, resumed bool) (bool, error) {
	vals.Secrets = r.secrets
	req, what, err := r.httpRequest(sctx, rn, st, vals)
	if err != nil {
		return r.outcome(ctx, rn, st, err, "", "")
	}
	if !resumed {
		if err := r.record(ctx, rn, rn.card.ID, kinds.RunStep, st, kinds.StepRunning, client.RecordBody{Text: what}); err != nil {
			return false, err
		}
	}
	crashPoint("before-publish:" + st.ID)
	status, body, err := r.call(req, what)
	crashPoint("after-publish:" + st.ID)
	res := expression.StepResult{Status: status, Body: body, Text: body}
	res.JSON = parseJSON(body)
	return r.outcomeOf(ctx, rn, st, err, res, client.RecordBody{Text: body, HTTPStatus: status})
}

// httpRequest renders the step's url, headers and body into a request.
func (r *Runner) httpRequest(ctx context.Context, rn *run, st *workflow.Step, vals expression.Values) (*http.Request, string, error) {
	h := st.HTTP
	raw, err := h.URL.Template.Render(vals)
	if err != nil {
		return nil, "", r.redactErr(fmt.Errorf("url: %w", err))
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, "", r.redactErr(fmt.Errorf("url %q is not an http or https URL", raw))
	}
	what := h.Method + " " + r.redact(u.Redacted())
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if ok, _ := r.allow.admits(u.Hostname(), port); !ok {
		return nil, what, fmt.Errorf("%s: host %s is not in the runner's [http] allow_hosts (%s): add it to the runner's config to allow it", what, r.redact(u.Host), r.allow)
	}
	var body io.Reader
	var text string
	if h.Body != nil {
		if text, err = h.Body.Template.Render(vals); err != nil {
			return nil, what, r.redactErr(fmt.Errorf("body: %w", err))
		}
		body = strings.NewReader(text)
	}
	req, err := http.NewRequestWithContext(ctx, h.Method, u.String(), body)
	if err != nil {
		return nil, what, r.redactErr(err)
	}
	for name, t := range h.Headers {
		v, err := t.Template.Render(vals)
		if err != nil {
			return nil, what, r.redactErr(fmt.Errorf("header %s: %w", name, err))
		}
		req.Header.Set(name, v)
	}
	if h.Body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "text/plain; charset=utf-8")
		if json.Valid([]byte(text)) {
			req.Header.Set("Content-Type", "application/json")
		}
	}
	req.Header.Set("Idempotency-Key", rn.id+"/"+st.ID)
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "hive-workflow")
	}
	return req, what, nil
}

// call sends req within the timeout and reads at most HTTPMaxResponse of
// the answer. A redirect, a status of 400 or more, a larger answer and a
// refused address are errors; the body kept is redacted and at most
// httpKept.
func (r *Runner) call(req *http.Request, what string) (int, string, error) {
	ctx, cancel := context.WithTimeout(req.Context(), httpTimeout)
	defer cancel()
	resp, err := r.http.Do(req.WithContext(ctx))
	if err != nil {
		var ra *refusedAddr
		var ue *url.Error
		switch {
		case errors.As(err, &ra):
			err = ra
		case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ue) && ue.Timeout():
			if req.Context().Err() != nil {
				err = errors.New("the step's timeout passed")
			} else {
				err = fmt.Errorf("no answer within %v", httpTimeout)
			}
		case errors.As(err, &ue):
			err = ue.Err
			var op *net.OpError
			if errors.As(err, &op) {
				err = op.Err
			}
		}
		return 0, "", r.redactErr(fmt.Errorf("%s: %w", what, err))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, HTTPMaxResponse+1))
	if err != nil {
		return resp.StatusCode, "", r.redactErr(fmt.Errorf("%s: reading the answer: %w", what, err))
	}
	if len(b) > HTTPMaxResponse {
		return resp.StatusCode, "", fmt.Errorf("%s: the answer is larger than 1 MiB (the limit of an http step)", what)
	}
	body := r.redact(keep(string(b)))
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		loc := r.redact(resp.Header.Get("Location"))
		return resp.StatusCode, body, fmt.Errorf("%s: the server answered %d, a redirect to %q: redirects are not followed; call the final URL", what, resp.StatusCode, loc)
	case resp.StatusCode >= 400:
		return resp.StatusCode, body, fmt.Errorf("%s: the server answered %d: %s", what, resp.StatusCode, snippet(body))
	}
	return resp.StatusCode, body, nil
}

// keep cuts a body to httpKept bytes, at a character boundary.
func keep(s string) string {
	if len(s) <= httpKept {
		return s
	}
	s = s[:httpKept]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}

// snippet is the start of an error body, for a reason.
func snippet(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "(no body)"
	}
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}

// parseJSON is a body read as JSON, nil when it is none.
func parseJSON(body string) any {
	var v any
	if body == "" || json.Unmarshal([]byte(body), &v) != nil {
		return nil
	}
	return v
}

// httpBody and httpJSON are an http step's answer as its record keeps it
// (nothing for other steps).
func httpBody(b client.RecordBody) string {
	if b.HTTPStatus == 0 {
		return ""
	}
	return b.Text
}

func httpJSON(b client.RecordBody) any { return parseJSON(httpBody(b)) }
