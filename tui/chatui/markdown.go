package chatui

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/glamour/ansi"
	"github.com/charmbracelet/glamour/styles"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// markdown renders message text with glamour. The text is untrusted: it is
// cleaned of terminal control before rendering, character references that
// would decode to control characters are dropped, and the rendered output
// keeps only glamour's own colour (SGR) sequences. Renderings are cached by
// width and text, so a redraw of a long timeline renders nothing again.
type markdown struct {
	profile  termenv.Profile
	byWidth  map[int]*glamour.TermRenderer
	cache    map[string][]string
	charRefs *regexp.Regexp
}

// markdownCacheMax bounds the rendering cache (it starts again when full).
const markdownCacheMax = 50000

func newMarkdown() *markdown {
	return &markdown{profile: lipgloss.ColorProfile(), byWidth: map[int]*glamour.TermRenderer{}, cache: map[string][]string{},
		charRefs: regexp.MustCompile(`&#([0-9]{1,8}|[xX][0-9a-fA-F]{1,8});`)}
}

// style is glamour's dark style without the document's margins and blank
// lines, so a message sits right after its author's name.
func style() ansi.StyleConfig {
	st := styles.DarkStyleConfig
	var zero uint
	st.Document.Margin = &zero
	st.Document.BlockPrefix, st.Document.BlockSuffix = "", ""
	return st
}

// lines renders text to lines at most width cells wide.
func (md *markdown) lines(text string, width int) []string {
	width = max(10, width)
	text = md.dropControlRefs(clean(text, true))
	key := strconv.Itoa(width) + "\x00" + text
	if out, ok := md.cache[key]; ok {
		return out
	}
	out := md.render(text, width)
	if len(md.cache) >= markdownCacheMax {
		clear(md.cache)
	}
	md.cache[key] = out
	return out
}

func (md *markdown) render(text string, width int) []string {
	if !looksLikeMarkdown(text) {
		return strings.Split(lipgloss.NewStyle().Width(width).Render(text), "\n")
	}
	r := md.byWidth[width]
	if r == nil {
		var err error
		r, err = glamour.NewTermRenderer(glamour.WithStyles(style()), glamour.WithWordWrap(width),
			glamour.WithColorProfile(md.profile), glamour.WithPreservedNewLines())
		if err != nil {
			return strings.Split(lipgloss.NewStyle().Width(width).Render(text), "\n")
		}
		md.byWidth[width] = r
	}
	s, err := r.Render(text)
	if err != nil {
		return strings.Split(lipgloss.NewStyle().Width(width).Render(text), "\n")
	}
	lines := strings.Split(keepSGR(s), "\n")
	for i := range lines {
		lines[i] = trimStyledRight(lines[i])
	}
	for len(lines) > 1 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 1 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// trimStyledRight drops the trailing spaces glamour pads a line with, also
// when they sit inside colour sequences (then a reset ends the line).
func trimStyledRight(l string) string {
	styled := false
	for {
		t := strings.TrimRight(l, " ")
		if strings.HasSuffix(t, "m") {
			if i := strings.LastIndex(t, "\x1b["); i >= 0 && strings.Trim(t[i+2:len(t)-1], "0123456789;:") == "" {
				l, styled = t[:i], true
				continue
			}
		}
		if styled {
			return t + "\x1b[0m"
		}
		return t
	}
}

// looksLikeMarkdown reports whether text has anything markdown would
// render differently from plain text (plain text skips glamour).
func looksLikeMarkdown(text string) bool {
	if strings.ContainsAny(text, "*_`#[>|~<&\\") {
		return true
	}
	for l := range strings.SplitSeq(text, "\n") {
		l = strings.TrimLeft(l, " ")
		if strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "+ ") || strings.HasPrefix(l, "---") {
			return true
		}
		if i := strings.IndexFunc(l, func(r rune) bool { return !unicode.IsDigit(r) }); i > 0 && strings.HasPrefix(l[i:], ". ") {
			return true
		}
	}
	return false
}

// dropControlRefs removes numeric character references (&#27; &#x1b;)
// that markdown would decode to a control or bidirectional character.
func (md *markdown) dropControlRefs(s string) string {
	if !strings.Contains(s, "&#") {
		return s
	}
	return md.charRefs.ReplaceAllStringFunc(s, func(ref string) string {
		num := strings.TrimSuffix(strings.TrimPrefix(ref, "&#"), ";")
		base := 10
		if num[0] == 'x' || num[0] == 'X' {
			num, base = num[1:], 16
		}
		n, err := strconv.ParseInt(num, base, 32)
		if err != nil || n == 0 || n > unicode.MaxRune || unicode.IsControl(rune(n)) || bidi(rune(n)) {
			return ""
		}
		return ref
	})
}

// keepSGR cleans rendered output: colour and style sequences (CSI ... m)
// stay, every other escape sequence and control character goes.
func keepSGR(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			b.WriteString(clean(s, true))
			return b.String()
		}
		b.WriteString(clean(s[:i], true))
		j := i + 2
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';' || s[j] == ':') {
			j++
		}
		if j < len(s) && s[j] == 'm' {
			b.WriteString(s[i : j+1])
			s = s[j+1:]
			continue
		}
		// not SGR: clean drops the whole sequence
		end := j + 1
		if end > len(s) {
			end = len(s)
		}
		b.WriteString(clean(s[i:end], true))
		s = s[end:]
	}
}
