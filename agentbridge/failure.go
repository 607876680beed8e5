package agentbridge

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Failure replies name what the agent said, the likely cause when the
// error is a known one, and the last lines of the agent's stderr, with
// secrets redacted.
const (
	stderrKeep  = 16 << 10 // bytes of an agent's stderr kept for failure replies
	stderrLines = 12       // lines of it a failure reply shows
	stderrLine  = 300      // bytes of one such line
)

// tailBuffer keeps the last bytes written to it (an agent's stderr).
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - stderrKeep; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

// lines is the last n non-blank lines, each cut to stderrLine bytes.
func (b *tailBuffer) lines(n int) []string {
	b.mu.Lock()
	text := string(b.buf)
	b.mu.Unlock()
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimRight(l, "\r \t"); strings.TrimSpace(l) != "" {
			out = append(out, clipLine(l))
		}
	}
	return out[max(0, len(out)-n):]
}

func clipLine(l string) string {
	if len(l) <= stderrLine {
		return l
	}
	return strings.ToValidUTF8(l[:stderrLine], "") + "…"
}

// secretPatterns match what looks like a key or a token in free text.
var secretPatterns = []*regexp.Regexp{
	regexp.MustCompile(`\b(?:nsec|ncryptsec)1[02-9ac-hj-np-z]{20,}`),
	regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{6,}`),
	regexp.MustCompile(`\b(?:gh[pousr]|github_pat|xox[abprs]|AKIA|AIza)[A-Za-z0-9_-]{10,}`),
	regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*`),
	regexp.MustCompile(`\b[0-9a-fA-F]{64}\b`),
	regexp.MustCompile(`(?i)\b(authorization|x-api-key|api[_-]?key|token|secret|password|passphrase)(["']?\s*[:=]\s*["']?)(?:bearer\s+)?[^\s"',}]+`),
}

// redact replaces secrets in text: the values of the agent's config env (of
// four bytes or more) and whatever looks like a key or a token.
func redact(text string, env map[string]string) string {
	vals := make([]string, 0, len(env))
	for _, v := range env {
		if len(v) >= 4 {
			vals = append(vals, v)
		}
	}
	slices.SortFunc(vals, func(a, b string) int { return len(b) - len(a) }) // longest first
	for _, v := range vals {
		text = strings.ReplaceAll(text, v, "[redacted]")
	}
	for i, re := range secretPatterns {
		if i == len(secretPatterns)-1 {
			text = re.ReplaceAllString(text, "$1$2[redacted]")
			continue
		}
		text = re.ReplaceAllString(text, "[redacted]")
	}
	return text
}

// likelyCause names what usually makes an agent fail with this error text,
// and how to fix it ("" when nothing is known).
func likelyCause(errText string, env map[string]string) string {
	low := strings.ToLower(errText)
	switch {
	case strings.Contains(low, "query closed before response received"):
		if _, set := env["IS_SANDBOX"]; set && env["IS_SANDBOX"] != "" {
			return "IS_SANDBOX is set in the agent's env, and claude-agent-acp fails session/new with it: remove it from env (or set it to \"\")"
		}
		return "claude-agent-acp's Claude Code process ended before it answered: check IS_SANDBOX (it must not be set), the API key in env (ANTHROPIC_API_KEY) and that HOME is writable"
	case strings.Contains(low, "authentication required"), strings.Contains(low, "api key"), strings.Contains(low, "/login"),
		strings.Contains(low, "unauthorized"), strings.Contains(low, "401"):
		return "the agent has no valid credentials: give it its API key in the config's env (e.g. ANTHROPIC_API_KEY, OPENAI_API_KEY with auth_method = \"openai-api-key\", GEMINI_API_KEY); the bridge's own environment does not reach the agent"
	case strings.Contains(low, "enoent"), strings.Contains(low, "not found"):
		return "a program or file the agent needs is missing: check command, cwd and PATH in the config's env"
	}
	return ""
}

// failureText is the body of a failure reply for err (what, the likely
// cause, the tail of the agent's stderr), redacted.
func failureText(what string, err error, stderr *tailBuffer, env map[string]string) string {
	msg := errText(err)
	var b strings.Builder
	b.WriteString(what + ": " + msg)
	if cause := likelyCause(msg+"\n"+strings.Join(stderr.lines(stderrLines), "\n"), env); cause != "" {
		b.WriteString("\nLikely cause: " + cause + ".")
	}
	if lines := stderr.lines(stderrLines); len(lines) > 0 {
		b.WriteString("\nThe agent's stderr ended with:\n```\n" + strings.Join(lines, "\n") + "\n```")
	}
	return redact(b.String(), env)
}
