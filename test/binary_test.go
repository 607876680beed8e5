package test

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	hiveBin   string
	buildErr  error
)

// binary builds cmd/hive once per test run.
func binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hive-bin-")
		if err != nil {
			buildErr = err
			return
		}
		hiveBin = filepath.Join(dir, "hive")
		cmd := exec.Command("go", "build", "-tags", "libsecp256k1,sqlite_fts5", "-o", hiveBin, "../cmd/hive")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return hiveBin
}

func freeAddr(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// stdoutLines starts cmd and returns its standard output line by line; the
// channel closes when the output does. The process is killed when the test
// ends.
func stdoutLines(t testing.TB, cmd *exec.Cmd) <-chan string {
	t.Helper()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := make(chan string, 1000)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return lines
}

// logged is a child process whose stderr is collected line by line.
type logged struct {
	cmd *exec.Cmd
	log *strings.Builder
	mu  *sync.Mutex
}

// startLogged starts cmd and waits until a stderr line contains ready.
func startLogged(t testing.TB, cmd *exec.Cmd, ready string, within time.Duration) *logged {
	t.Helper()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	l := &logged{cmd: cmd, log: &strings.Builder{}, mu: &sync.Mutex{}}
	seen := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		once := sync.Once{}
		for sc.Scan() {
			l.mu.Lock()
			l.log.WriteString(sc.Text() + "\n")
			l.mu.Unlock()
			if strings.Contains(sc.Text(), ready) {
				once.Do(func() { close(seen) })
			}
		}
	}()
	select {
	case <-seen:
	case <-time.After(within):
		cmd.Process.Kill()
		t.Fatalf("%s did not start:\n%s", cmd.Path, l.logs())
	}
	return l
}

func (l *logged) logs() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.log.String()
}

// hubProc is a `hive serve` child process.
type hubProc struct {
	*logged
	addr string
	URL  string
}

func startProc(t testing.TB, dataDir, addr string, args ...string) *hubProc {
	t.Helper()
	all := append([]string{"serve", "--data", dataDir, "--addr", addr}, args...)
	p := &hubProc{logged: startLogged(t, exec.Command(binary(t), all...), "hive hub serving", 20*time.Second), addr: addr, URL: "ws://" + addr}
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	return p
}

func (p *hubProc) kill9() {
	p.cmd.Process.Signal(os.Kill)
	p.cmd.Wait()
}
