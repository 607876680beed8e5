package test

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// netLab is a set of network namespaces the test creates, linked by veth
// pairs made inside them, with no route beyond those links; nothing is added
// to the host's namespace. Everything is removed when the test ends.
type netLab struct {
	t      *testing.T
	prefix string
	spaces []string
	octet  int // second octet of the lab's 10.x.0.0/16
}

// newNetLab skips the test, with the reason, where namespaces cannot be made.
func newNetLab(t *testing.T) *netLab {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root (ip netns); run the tests as root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("network namespaces need the ip command (iproute2)")
	}
	sweepStaleLabs()
	b := make([]byte, 2)
	rand.Read(b)
	// the name holds the test process's pid, so a lab left by a killed run can be swept
	lab := &netLab{t: t, prefix: fmt.Sprintf("hv%dx%s", os.Getpid(), hex.EncodeToString(b)), octet: 100 + int(b[0])%100}
	probe := lab.prefix + "p"
	if out, err := exec.Command("ip", "netns", "add", probe).CombinedOutput(); err != nil {
		t.Skipf("network namespaces unavailable here: ip netns add: %v %s", err, out)
	}
	exec.Command("ip", "netns", "del", probe).Run()
	t.Cleanup(lab.teardown)
	return lab
}

func (l *netLab) ip(args ...string) {
	l.t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		l.t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// space creates a namespace with its loopback up.
func (l *netLab) space(name string) string {
	l.t.Helper()
	ns := l.prefix + name
	l.ip("netns", "add", ns)
	l.spaces = append(l.spaces, ns)
	l.ip("-n", ns, "link", "set", "lo", "up")
	return ns
}

// link joins a and b with a veth pair on subnet 10.<octet>.<n>.0/24 and
// returns the addresses of a's and b's ends. The pair is made inside a and
// its peer moved straight into b.
func (l *netLab) link(a, b string, n int) (aAddr, bAddr, bDev string) {
	l.t.Helper()
	devA, devB := fmt.Sprintf("v%da", n), fmt.Sprintf("v%db", n)
	l.ip("-n", a, "link", "add", devA, "type", "veth", "peer", "name", devB, "netns", b)
	aAddr, bAddr = fmt.Sprintf("10.%d.%d.1", l.octet, n), fmt.Sprintf("10.%d.%d.2", l.octet, n)
	l.ip("-n", a, "addr", "add", aAddr+"/24", "dev", devA)
	l.ip("-n", b, "addr", "add", bAddr+"/24", "dev", devB)
	l.ip("-n", a, "link", "set", devA, "up")
	l.ip("-n", b, "link", "set", devB, "up")
	return aAddr, bAddr, devB
}

// setLink brings dev in ns down or up (on the namespace's side).
func (l *netLab) setLink(ns, dev string, up bool) {
	state := "down"
	if up {
		state = "up"
	}
	l.ip("-n", ns, "link", "set", dev, state)
}

// noRouteOut checks that ns has no default route: a packet to a test
// address can only go over the test's links.
func (l *netLab) noRouteOut(ns string) {
	l.t.Helper()
	out, err := exec.Command("ip", "-n", ns, "route", "show", "default").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "" {
		l.t.Fatalf("namespace %s has a default route: %s %v", ns, out, err)
	}
}

// cmd is a command run inside ns.
func (l *netLab) cmd(ns string, env []string, name string, args ...string) *exec.Cmd {
	c := exec.Command("ip", append([]string{"netns", "exec", ns, name}, args...)...)
	c.Env = append(os.Environ(), env...)
	return c
}

func (l *netLab) teardown() {
	for _, ns := range l.spaces {
		if err := removeSpace(ns); err != nil {
			l.t.Errorf("teardown of %s: %v", ns, err)
		}
	}
}

// removeSpace kills what still runs inside ns, then deletes it (its veths go with it).
func removeSpace(ns string) error {
	if out, err := exec.Command("ip", "netns", "pids", ns).Output(); err == nil {
		for _, pid := range strings.Fields(string(out)) {
			exec.Command("kill", "-9", pid).Run()
		}
	}
	if out, err := exec.Command("ip", "netns", "del", ns).CombinedOutput(); err != nil {
		return fmt.Errorf("ip netns del: %v %s", err, out)
	}
	return nil
}

var staleLab = regexp.MustCompile(`^hv([0-9]+)x[0-9a-f]+`)

// sweepStaleLabs removes the namespaces of test runs whose process is gone
// (a run killed before its cleanup).
func sweepStaleLabs() {
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		m := staleLab.FindStringSubmatch(f[0])
		if m == nil {
			continue
		}
		pid, _ := strconv.Atoi(m[1])
		if pid > 0 && syscall.Kill(pid, 0) == syscall.ESRCH {
			removeSpace(f[0])
		}
	}
}

// proc is a long-running process in a namespace whose stderr is kept and
// whose stdout lines arrive, timestamped, on lines.
type proc struct {
	cmd   *exec.Cmd
	mu    sync.Mutex
	log   strings.Builder
	lines chan stampedLine
	done  chan struct{}
}

type stampedLine struct {
	at   time.Time
	text string
}

func startNSProc(t *testing.T, c *exec.Cmd, ready string) *proc {
	t.Helper()
	p := &proc{cmd: c, lines: make(chan stampedLine, 4096), done: make(chan struct{})}
	stdout, _ := c.StdoutPipe()
	stderr, _ := c.StderrPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	readyc := make(chan struct{})
	var once sync.Once
	if ready == "" {
		once.Do(func() { close(readyc) })
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.log.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			if ready != "" && strings.Contains(sc.Text(), ready) {
				once.Do(func() { close(readyc) })
			}
		}
	}()
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.lines <- stampedLine{time.Now(), sc.Text()}
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case <-readyc:
	case <-time.After(20 * time.Second):
		c.Process.Kill()
		t.Fatalf("%s did not start:\n%s", c.Args, p.logs())
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	return p
}

func (p *proc) logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}
