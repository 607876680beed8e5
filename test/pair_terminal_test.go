package test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// openPTY opens a pseudo-terminal: the master (what the terminal shows) and
// the slave (the program's stdin, stdout and stderr).
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var n uint32
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatal(e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatal(e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// screen is what a terminal shows of a program's output: carriage returns
// move to the line's start and later characters overwrite earlier ones.
type screen struct {
	mu    sync.Mutex
	lines []string
	cur   []rune
	col   int
}

func (s *screen) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range string(b) {
		switch r {
		case '\r':
			s.col = 0
		case '\n':
			s.lines = append(s.lines, string(s.cur))
			s.cur, s.col = nil, 0
		default:
			if s.col < len(s.cur) {
				s.cur[s.col] = r
			} else {
				s.cur = append(s.cur, r)
			}
			s.col++
		}
	}
	return len(b), nil
}

// text is every line so far and the current one.
func (s *screen) text() (all, current string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.lines, "\n"), string(s.cur)
}

// waitFor polls until cond holds of the screen.
func (s *screen) waitFor(t *testing.T, what string, cond func(all, current string) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if all, cur := s.text(); cond(all, cur) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	all, cur := s.text()
	t.Fatalf("the terminal never showed %s:\n%s\n%q", what, all, cur)
}

var joinLineRe = regexp.MustCompile(`hive join '(nostrpair://[^']+)'`)

// TestPairOnATerminal runs `hive pair` on a real pseudo-terminal, as a
// person does: its spinner runs while it waits, and once the code shows,
// the "Same code on both screens? [y/N]" prompt stays on the screen (before
// the fix the stopped spinner's clean-up erased it, 3 of 3 runs). The device
// joins with --profile phone and is listed under that name, not the
// machine's host name.
func TestPairOnATerminal(t *testing.T) {
	h := startPairingHub(t)
	master, slave := openPTY(t)
	cmd := exec.Command(binary(t), "pair")
	// One P, as on a one-core box: the stopped spinner runs only once the
	// main goroutine waits for the answer, which is when it erased the prompt.
	cmd.Env = append(os.Environ(), "HIVE_HOME="+h.owner.home, "GOMAXPROCS=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	scr := &screen{}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := master.Read(b)
			scr.Write(b[:n])
			if err != nil {
				return
			}
		}
	}()

	var uri string
	scr.waitFor(t, "the join command and the spinner", func(all, cur string) bool {
		if m := joinLineRe.FindStringSubmatch(all); m != nil {
			uri = m[1]
		}
		return uri != "" && strings.Contains(cur, "waiting for the other device")
	})
	phone := newCLI(t)
	join := phone.start("join", uri, "--profile", "phone")
	join.next("sas")
	const prompt = "Same code on both screens? [y/N] "
	scr.waitFor(t, "the prompt", func(_, cur string) bool { return strings.HasPrefix(cur, prompt) })
	// nothing redraws the prompt: it reads the same at every look for half
	// a second (several spinner ticks)
	for end := time.Now().Add(500 * time.Millisecond); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if all, cur := scr.text(); cur != prompt {
			t.Fatalf("the prompt line reads %q while the prompt waits, want %q; the screen:\n%s", cur, prompt, all)
		}
	}
	join.answer("y")
	master.Write([]byte("y\n"))
	join.next("done")
	if c := join.exit(); c != 0 {
		t.Fatalf("join exit %d: %s", c, join.errors())
	}
	select {
	case err := <-exited:
		if err != nil {
			all, cur := scr.text()
			t.Fatalf("hive pair: %v\n%s\n%s", err, all, cur)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("hive pair did not exit")
	}
	var list struct {
		Devices []struct{ Name, Agent string }
	}
	out := h.owner.ok("device", "list", "--json")
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Devices) != 1 || list.Devices[0].Name != "phone" {
		host, _ := os.Hostname()
		t.Fatalf("device list after joining with --profile phone (host %q): %s, want one device named phone", host, out)
	}
}

// TestJoinDeviceName: `hive join --name` names the device in the owner's
// device list, whatever the profile is called.
func TestJoinDeviceName(t *testing.T) {
	h := startPairingHub(t)
	pair := h.owner.start("pair")
	uri := pair.next("uri")["uri"].(string)
	tablet := newCLI(t)
	join := tablet.start("join", uri, "--profile", "work", "--name", "Kitchen tablet")
	if a, b := pair.next("sas")["sas"], join.next("sas")["sas"]; a != b {
		t.Fatalf("pair shows %v, join shows %v", a, b)
	}
	join.answer("y")
	pair.answer("y")
	join.next("done")
	pair.next("done")
	if c := join.exit(); c != 0 {
		t.Fatalf("join exit %d: %s", c, join.errors())
	}
	out := h.owner.ok("device", "list", "--json")
	if !strings.Contains(out, `"name":"Kitchen tablet"`) {
		t.Fatalf("device list after join --name 'Kitchen tablet': %s", out)
	}
}
