package store

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SearchQuery is a NIP-50 search string, parsed: every Term must match, no
// Not term may; From and In narrow it to authors and channels by name (any
// of each list). Other key:value extensions are ignored, as NIP-50 asks.
type SearchQuery struct {
	Terms, Not []Term
	From, In   []string
}

// Term is a word or a quoted phrase as the index sees it: its tokens in
// order, the last one a prefix when Prefix is set.
type Term struct {
	Tokens []string
	Prefix bool
}

// maxSearchTerms bounds the terms of one query (each is a lookup in the
// index), maxSearchBytes its length.
const (
	maxSearchTerms = 16
	maxSearchBytes = 1024
)

// ParseSearch parses a NIP-50 search string: words (all must match),
// "quoted phrases", word* (prefix), -word or -"phrase" (must not match), and
// the extensions from:NAME and in:CHANNEL. Bad syntax is a Rejection whose
// message starts with invalid: and says what is wrong.
func ParseSearch(s string) (*SearchQuery, error) {
	if len(s) > maxSearchBytes {
		return nil, reject(fmt.Sprintf("invalid: search: at most %d bytes", maxSearchBytes))
	}
	q := &SearchQuery{}
	rest := strings.TrimSpace(s)
	for rest != "" {
		neg := false
		if rest[0] == '-' {
			neg = true
			rest = rest[1:]
			if rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' {
				return nil, reject(`invalid: search: a "-" must be followed by the word or "phrase" to leave out`)
			}
		}
		var t Term
		var err error
		if rest[0] == '"' {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				return nil, reject(`invalid: search: a quoted phrase is not closed (a " is missing)`)
			}
			phrase := rest[1 : 1+end]
			rest = rest[2+end:]
			if rest != "" && rest[0] == '*' {
				return nil, reject(`invalid: search: a "phrase" cannot be a prefix; put * after a single word`)
			}
			t = Term{Tokens: Tokenize(phrase)}
		} else {
			word := rest
			if i := strings.IndexFunc(rest, unicode.IsSpace); i >= 0 {
				word, rest = rest[:i], rest[i:]
			} else {
				rest = ""
			}
			if k, v, ok := extension(word); ok {
				if neg {
					return nil, reject(fmt.Sprintf("invalid: search: %q cannot be negated", word))
				}
				switch k {
				case "from":
					q.From = append(q.From, v)
				case "in":
					q.In = append(q.In, v)
				}
				rest = strings.TrimSpace(rest)
				continue
			}
			if t, err = wordTerm(word); err != nil {
				return nil, err
			}
		}
		rest = strings.TrimSpace(rest)
		if len(t.Tokens) == 0 {
			continue // punctuation only: nothing the index holds
		}
		if neg {
			q.Not = append(q.Not, t)
		} else {
			q.Terms = append(q.Terms, t)
		}
		if len(q.Terms)+len(q.Not) > maxSearchTerms {
			return nil, reject(fmt.Sprintf("invalid: search: at most %d words and phrases", maxSearchTerms))
		}
	}
	if len(q.Terms) == 0 {
		return nil, reject("invalid: search: give at least one word to look for (a query of only -words, extensions or punctuation matches nothing)")
	}
	return q, nil
}

// extension splits key:value, key being letters only and value non-empty.
func extension(word string) (key, value string, ok bool) {
	k, v, found := strings.Cut(word, ":")
	if !found || k == "" || v == "" || strings.HasPrefix(v, "/") {
		return "", "", false
	}
	for _, r := range k {
		if r < 'a' || r > 'z' {
			return "", "", false
		}
	}
	return k, v, true
}

// wordTerm reads one bare word; a * may end it (prefix), nowhere else.
func wordTerm(word string) (Term, error) {
	prefix := strings.HasSuffix(word, "*")
	body := strings.TrimSuffix(word, "*")
	if strings.Contains(body, "*") {
		return Term{}, reject(fmt.Sprintf(`invalid: search: %q: * may only end a word (prefix search: word*)`, word))
	}
	if strings.Contains(body, `"`) {
		return Term{}, reject(fmt.Sprintf(`invalid: search: %q: a quote may only start a "phrase"`, word))
	}
	t := Term{Tokens: Tokenize(body), Prefix: prefix}
	if prefix && len(t.Tokens) == 0 {
		return Term{}, reject(`invalid: search: a lone * has no word to complete (prefix search: word*)`)
	}
	return t, nil
}

// Tokenize splits text into the index's tokens: runs of letters and digits,
// lower-cased. Both logs index exactly these (SQLite's unicode61 tokenizer
// without diacritic folding; PostgreSQL is given the tokens themselves).
// ASCII is judged byte by byte, and a token already in lower case is a
// substring of s, not a copy: searches tokenize every ranked match.
func Tokenize(s string) []string {
	out := make([]string, 0, len(s)/5)
	start := -1
	for i := 0; i < len(s); {
		c, size := rune(s[i]), 1
		var tok bool
		if c < utf8.RuneSelf {
			tok = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		} else {
			c, size = utf8.DecodeRuneInString(s[i:])
			tok = isTokenRune(c)
		}
		switch {
		case tok && start < 0:
			start = i
		case !tok && start >= 0:
			out = append(out, strings.ToLower(s[start:i]))
			start = -1
		}
		i += size
	}
	if start >= 0 {
		out = append(out, strings.ToLower(s[start:]))
	}
	return out
}

func isTokenRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }
