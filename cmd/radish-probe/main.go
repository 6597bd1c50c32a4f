// Command radish-probe is the health check of a radish-server, for
// Kubernetes exec probes and container health checks where no redis-cli
// exists (the image holds two static binaries and nothing else).
//
//	radish-probe [-addr 127.0.0.1:6379] [-timeout 2s] live|ready
//
// live: the server answers PING (+PONG, or -LOADING while it loads its
// data: alive, not ready). ready: it answers PING with +PONG and INFO
// persistence says loading:0, so it serves its whole dataset. The password,
// when requirepass is set, comes from the environment (RADISH_PASSWORD, or
// REDISCLI_AUTH as redis-cli reads it), never from the command line.
// Exit status 0: healthy; 1: not, with the reason on stderr.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "the server's address")
	timeout := flag.Duration("timeout", 2*time.Second, "time allowed for the whole check")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: radish-probe [-addr host:port] [-timeout d] live|ready")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || (flag.Arg(0) != "live" && flag.Arg(0) != "ready") {
		flag.Usage()
		os.Exit(2)
	}
	pass := os.Getenv("RADISH_PASSWORD")
	if pass == "" {
		pass = os.Getenv("REDISCLI_AUTH")
	}
	if err := probe(*addr, *timeout, flag.Arg(0) == "ready", pass); err != nil {
		fmt.Fprintln(os.Stderr, "radish-probe:", err)
		os.Exit(1)
	}
}

// probe runs one check against addr.
func probe(addr string, timeout time.Duration, ready bool, pass string) error {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(timeout))
	r := bufio.NewReader(c)
	if pass != "" {
		line, err := call(c, r, "AUTH", pass)
		if err != nil {
			return err
		}
		if line != "+OK" {
			return fmt.Errorf("AUTH: %s", line)
		}
	}
	line, err := call(c, r, "PING")
	switch {
	case err != nil:
		return err
	case strings.HasPrefix(line, "-LOADING") && !ready:
		return nil
	case line != "+PONG":
		return fmt.Errorf("PING: %s", line)
	case !ready:
		return nil
	}
	info, err := callBulk(c, r, "INFO", "persistence")
	if err != nil {
		return err
	}
	if !strings.Contains(info, "\r\nloading:0\r\n") {
		return errors.New("the server is loading its data")
	}
	return nil
}

// call sends a command and returns its one-line reply.
func call(c net.Conn, r *bufio.Reader, args ...string) (string, error) {
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		return "", err
	}
	line, err := r.ReadString('\n')
	return strings.TrimRight(line, "\r\n"), err
}

// callBulk sends a command whose reply is a bulk string and returns it.
func callBulk(c net.Conn, r *bufio.Reader, args ...string) (string, error) {
	line, err := call(c, r, args...)
	if err != nil {
		return "", err
	}
	if len(line) < 2 || line[0] != '$' {
		return "", fmt.Errorf("%s: %s", args[0], line)
	}
	n, err := strconv.Atoi(line[1:])
	if err != nil || n < 0 || n > 1<<20 {
		return "", fmt.Errorf("%s: bad reply %q", args[0], line)
	}
	buf := make([]byte, n+2)
	if _, err := io.ReadFull(r, buf); err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}
