package agentbridge

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// maxLine is the longest JSON-RPC line accepted from an agent (as acp-go-sdk).
const maxLine = 10 << 20

// Shutdown grace periods: after stdin is closed, and after SIGTERM.
const (
	eofGrace  = 2 * time.Second
	termGrace = 5 * time.Second
)

// LineHook sees every JSON-RPC line: dir is "in" (agent to bridge) or "out".
// It runs before the line reaches the other side, in wire order per direction.
type LineHook func(dir string, line []byte)

// proc is one ACP agent child process in its own process group, with its
// stdio wired through line hooks so raw messages can be observed.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	sdkIn  *io.PipeReader // what the SDK reads: stdout lines after the hook
	exited chan struct{}  // closed when the process has exited
	err    error          // exit status, valid after exited
	last   atomic.Int64   // unix nanoseconds of the last line from the agent
	hook   LineHook
	stderr *tailBuffer // the last of the agent's stderr, for failure replies

	stopOnce sync.Once
}

// LookCommand checks that the agent command exists, with a clear error.
func LookCommand(cmd []string, env map[string]string) error {
	if _, err := exec.LookPath(cmd[0]); err != nil {
		return fmt.Errorf("command %q not found: install it or give its full path in command = [...] (%v)", cmd[0], err)
	}
	return nil
}

// spawn starts the command in its own process group; the kernel sends it
// deathSignal if the bridge dies (see RunGuard).
func spawn(command []string, dir string, env map[string]string, stderr io.Writer, hook LineHook) (*proc, error) {
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Dir = dir
	cmd.Env = AgentEnv(os.Environ(), env)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: deathSignal}
	tail := &tailBuffer{}
	cmd.Stderr = io.MultiWriter(stderr, tail)
	cmd.WaitDelay = eofGrace // a child left holding stderr does not hold up Wait
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %q: %w", command[0], err)
	}
	pr, pw := io.Pipe()
	p := &proc{cmd: cmd, stdin: stdin, sdkIn: pr, exited: make(chan struct{}), hook: hook, stderr: tail}
	p.last.Store(time.Now().UnixNano())
	go p.pump(stdout, pw)
	return p, nil
}

// pump reads the agent's stdout line by line, shows each line to the hook,
// then hands it to the SDK; it reaps the process when stdout ends.
func (p *proc) pump(stdout io.Reader, sdk *io.PipeWriter) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		line := sc.Bytes()
		p.last.Store(time.Now().UnixNano())
		if p.hook != nil && len(line) > 0 {
			p.hook("in", line)
		}
		buf := make([]byte, len(line)+1)
		copy(buf, line)
		buf[len(line)] = '\n'
		if _, err := sdk.Write(buf); err != nil {
			break
		}
	}
	err := sc.Err()
	if err != nil { // an over-long line: the stream cannot be resynchronised
		p.killGroup(syscall.SIGKILL)
	}
	io.Copy(io.Discard, stdout)
	p.err = p.cmd.Wait()
	if err == nil {
		err = errors.New("agent exited")
	}
	sdk.CloseWithError(err)
	close(p.exited)
}

// Write sends one JSON-RPC line to the agent (the SDK writes whole lines).
func (p *proc) Write(b []byte) (int, error) {
	if p.hook != nil {
		p.hook("out", trimNL(b))
	}
	return p.stdin.Write(b)
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// Pid is the process id (and process group id).
func (p *proc) Pid() int { return p.cmd.Process.Pid }

// stop shuts the agent down: close stdin, then SIGTERM the process group,
// then SIGKILL it. Some adapters ignore EOF, some ignore SIGTERM, and some
// leave native children behind unless the whole group is killed.
func (p *proc) stop() {
	p.stopOnce.Do(func() {
		p.stdin.Close()
		if p.waitExit(eofGrace) {
			p.killGroup(syscall.SIGKILL) // stragglers the agent left in its group
			return
		}
		p.killGroup(syscall.SIGTERM)
		if p.waitExit(termGrace) {
			p.killGroup(syscall.SIGKILL)
			return
		}
		p.killGroup(syscall.SIGKILL)
		p.waitExit(termGrace)
	})
}

// kill is the hard stop used when an agent is wedged.
func (p *proc) kill() {
	p.killGroup(syscall.SIGKILL)
	p.stop()
}

func (p *proc) killGroup(sig syscall.Signal) {
	syscall.Kill(-p.cmd.Process.Pid, sig)
}

func (p *proc) waitExit(d time.Duration) bool {
	select {
	case <-p.exited:
		return true
	case <-time.After(d):
		return false
	}
}
