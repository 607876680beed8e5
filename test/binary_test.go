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
		cmd := exec.Command("go", "build", "-tags", "libsecp256k1", "-o", hiveBin, "../cmd/hive")
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

// hubProc is a `hive serve` child process.
type hubProc struct {
	cmd  *exec.Cmd
	addr string
	URL  string
	log  *strings.Builder
	mu   *sync.Mutex
}

func startProc(t testing.TB, dataDir, addr string, args ...string) *hubProc {
	t.Helper()
	all := append([]string{"serve", "--data", dataDir, "--addr", addr}, args...)
	cmd := exec.Command(binary(t), all...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &hubProc{cmd: cmd, addr: addr, URL: "ws://" + addr, log: &strings.Builder{}, mu: &sync.Mutex{}}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		once := sync.Once{}
		for sc.Scan() {
			p.mu.Lock()
			p.log.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			if strings.Contains(sc.Text(), "hive hub serving") {
				once.Do(func() { close(ready) })
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("hub did not start:\n%s", p.logs())
	}
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	return p
}

func (p *hubProc) logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

func (p *hubProc) kill9() {
	p.cmd.Process.Signal(os.Kill)
	p.cmd.Wait()
}
