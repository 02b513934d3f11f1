package main

// The throughput bench's sandbox runs in a child process (this binary, re-executed
// with throughputSandboxEnv set), so that the bench process's CPU time is the
// crawler's alone and the sandbox's serving, page generation and truth log are
// counted apart. The two talk over the child's stdin and stdout, one line each way:
//
//	child:  {"info": …, "ceiling": …}      once, when it serves (the start's event)
//	parent: mark                            child: {"next": N, "dns": …, "cpu_ns": …}
//	parent: account N                       child: {"cpu_ns": …, "requests": …, …}
//
// The child reads its CPU time last when marking and first when accounting, so that
// a run's window holds its serving and not the bookkeeping around it. It exits when
// its stdin ends: when the parent closes it, and when the parent dies however it
// dies (the kernel closes the parent's end), so no sandbox outlives a bench.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/crawlconsole/crawlconsole/sandbox"
)

// throughputSandboxEnv, set to 1, makes this process the throughput bench's sandbox
// child: it takes -hosts, -par, -ceiling-d and -cpuprofile from its arguments.
const throughputSandboxEnv = "CRAWLCONSOLE_BENCH_THROUGHPUT_SANDBOX"

func init() {
	if os.Getenv(throughputSandboxEnv) == "1" {
		os.Exit(throughputSandboxChild(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
}

// throughputReady is the child's first line.
type throughputReady struct {
	Info    sandbox.Info `json:"info"`
	Ceiling float64      `json:"ceiling"` // pages/s, 0 when not measured
}

// throughputReply answers mark and account.
type throughputReply struct {
	CPU      int64  `json:"cpu_ns"` // the child's CPU time so far
	Next     int    `json:"next,omitempty"`
	DNS      int    `json:"dns,omitempty"` // DNS queries answered so far
	Requests int    `json:"requests,omitempty"`
	Pages    int    `json:"pages,omitempty"`
	Unique   int    `json:"unique,omitempty"`
	Err      string `json:"err,omitempty"`
}

// throughputSandboxChild serves the bench's sandbox until in ends and returns the
// exit status.
func throughputSandboxChild(args []string, in io.Reader, out, errOut io.Writer) int {
	fs := flag.NewFlagSet("throughput-sandbox", flag.ContinueOnError)
	fs.SetOutput(errOut)
	hosts := fs.Int("hosts", 240, "sandbox virtual hosts")
	par := fs.Int("par", 16, "connections of the ceiling measurement")
	ceilingD := fs.Duration("ceiling-d", 0, "duration of the ceiling measurement (0: none)")
	cpuProfile := fs.String("cpuprofile", "", "CPU profile of the child after the ceiling, until it ends")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(errOut, "throughput sandbox: %v\n", err)
		return 1
	}
	cfg := crawlSandboxConfig(*hosts, 1)
	cfg.AntiBot.Enabled = false
	sb, err := sandbox.Start(cfg)
	if err != nil {
		return fail(err)
	}
	defer sb.Close()
	ready := throughputReady{Info: sb.Info()}
	if *ceilingD > 0 {
		// Measured here, client and server in one process as the bench always did.
		if ready.Ceiling, err = measureCeiling(sb, *ceilingD, *par); err != nil {
			return fail(fmt.Errorf("ceiling: %w", err))
		}
	}
	stop, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return fail(err)
	}
	defer stop()
	enc := json.NewEncoder(out)
	if err := enc.Encode(ready); err != nil {
		return fail(err)
	}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var r throughputReply
		cmd, arg, _ := strings.Cut(sc.Text(), " ")
		switch cmd {
		case "mark":
			_, r.Next = sb.Truth().RequestsSince(1 << 62)
			r.DNS = sb.Truth().DNSTotal()
			r.CPU = int64(crawlCPU())
		case "account":
			r.CPU = int64(crawlCPU())
			since, err := strconv.Atoi(arg)
			if err != nil {
				r.Err = fmt.Sprintf("account %q: %v", arg, err)
				break
			}
			a := crawlAccountSince(sb, since, 0)
			r.Requests, r.Pages, r.Unique, r.DNS = a.requests, a.pages, a.unique, sb.Truth().DNSTotal()
		default:
			r.Err = fmt.Sprintf("unknown command %q", sc.Text())
		}
		if err := enc.Encode(r); err != nil {
			return fail(err)
		}
	}
	return 0
}

// throughputSandbox is the parent's handle on the sandbox child.
type throughputSandbox struct {
	throughputReady
	cmd     *exec.Cmd
	in      *os.File      // the child's stdin
	out     *bufio.Reader // the child's stdout
	done    chan struct{} // closed once the child has exited and been reaped
	waitErr error         // the child's exit, once done is closed
}

// startThroughputSandbox starts the sandbox child and returns once it serves (its
// first line). The child is killed when ctx ends, and exits by itself when this
// process closes its stdin or dies.
func startThroughputSandbox(ctx context.Context, hosts, par int, ceilingD time.Duration, cpuProfile string) (*throughputSandbox, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, self, "-hosts", strconv.Itoa(hosts), "-par", strconv.Itoa(par), "-ceiling-d", ceilingD.String(), "-cpuprofile", cpuProfile)
	cmd.Env = append(os.Environ(), throughputSandboxEnv+"=1")
	cmd.Stderr = os.Stderr
	// Pipes of our own rather than StdinPipe/StdoutPipe, whose ends Wait closes: here
	// a goroutine waits on the child while the bench still reads and writes.
	childIn, in, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	out, childOut, err := os.Pipe()
	if err != nil {
		childIn.Close()
		in.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = childIn, childOut
	err = cmd.Start()
	childIn.Close()
	childOut.Close()
	if err != nil {
		in.Close()
		out.Close()
		return nil, fmt.Errorf("start the sandbox child: %w", err)
	}
	s := &throughputSandbox{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10), done: make(chan struct{})}
	go func() {
		s.waitErr = cmd.Wait()
		out.Close() // a read still waiting on a child that died fails rather than hangs
		close(s.done)
	}()
	line, err := s.out.ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &s.throughputReady)
	}
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("the sandbox child did not start (%v): %w", s.waitErr, err)
	}
	return s, nil
}

// Pid is the child's process id.
func (s *throughputSandbox) Pid() int { return s.cmd.Process.Pid }

// ask sends one command and reads the child's answer.
func (s *throughputSandbox) ask(cmd string) (throughputReply, error) {
	var r throughputReply
	if _, err := io.WriteString(s.in, cmd+"\n"); err != nil {
		return r, fmt.Errorf("sandbox child: %s: %w", cmd, err)
	}
	line, err := s.out.ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &r)
	}
	if err == nil && r.Err != "" {
		err = errors.New(r.Err)
	}
	if err != nil {
		return r, fmt.Errorf("sandbox child: %s: %w", cmd, err)
	}
	return r, nil
}

// throughputMark is where a run starts in the child's accounts.
type throughputMark struct {
	next, dns int
	cpu       time.Duration
}

// mark returns the truth log's next request index, the DNS queries answered and the
// child's CPU time so far.
func (s *throughputSandbox) mark() (throughputMark, error) {
	r, err := s.ask("mark")
	return throughputMark{next: r.Next, dns: r.DNS, cpu: time.Duration(r.CPU)}, err
}

// account returns what the sandbox served since m: the HTTP account, the DNS
// queries it answered, and its CPU time over the window.
func (s *throughputSandbox) account(m throughputMark) (crawlAccount, int, time.Duration, error) {
	r, err := s.ask("account " + strconv.Itoa(m.next))
	return crawlAccount{requests: r.Requests, pages: r.Pages, unique: r.Unique}, r.DNS - m.dns, time.Duration(r.CPU) - m.cpu, err
}

// seeds and hosts are crawlSeeds and crawlHosts of the child's sandbox.
func (s *throughputSandbox) seeds() []string {
	var out []string
	for _, site := range s.Info.Sites {
		out = append(out, site.Entry)
	}
	return out
}

func (s *throughputSandbox) hosts() []string {
	var out []string
	for _, site := range s.Info.Sites {
		out = append(out, site.Hosts...)
	}
	return out
}

// Close ends the child's stdin and waits for it to exit (killing it if it has not
// within 10 s); it returns the child's failure, if any. Safe to call twice.
func (s *throughputSandbox) Close() error {
	s.in.Close()
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill() //nolint:errcheck // it may just have exited
		<-s.done
	}
	return s.waitErr
}
