package mockmodel

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
)

// server is what the mocks share: a listener on 127.0.0.1:0, the script
// (package doc) and a log of what each request was answered with.
type server struct {
	URL          string // base URL, http://127.0.0.1:PORT
	Text         string // the answer to a plain prompt
	ShellCommand string // the command of the [[shell]] tool call

	srv *http.Server
	mu  sync.Mutex
	log []string
}

// serve starts mux on a fresh loopback port; requests no route matches are
// logged and answered 404.
func serve(mux *http.ServeMux, text, shell string) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &server{URL: "http://" + ln.Addr().String(), Text: text, ShellCommand: shell}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.note("unhandled " + r.Method + " " + r.URL.Path)
		http.NotFound(w, r)
	})
	s.srv = &http.Server{Handler: mux}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the server.
func (s *server) Close() { s.srv.Close() }

// Log returns one line per request served.
func (s *server) Log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

func (s *server) note(line string) {
	s.mu.Lock()
	s.log = append(s.log, line)
	s.mu.Unlock()
}

// sse starts a server-sent event stream on w and returns its writer: one
// named event with a JSON body, flushed at once.
func sse(w http.ResponseWriter) func(event string, v any) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl, _ := w.(http.Flusher)
	return func(event string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
		if fl != nil {
			fl.Flush()
		}
	}
}

var rememberCue = regexp.MustCompile(`\[\[remember:([^\]]+)\]\]`)

// recall is the answer to "[[recall]]": "recall: " and every
// [[remember:WORD]] the conversation's user messages hold, in order (what
// the model was sent shows whether the agent kept its history).
func recall(userTexts []string) string {
	var words []string
	for _, t := range userTexts {
		for _, m := range rememberCue.FindAllStringSubmatch(t, -1) {
			words = append(words, m[1])
		}
	}
	return "recall: " + strings.Join(words, " ")
}
