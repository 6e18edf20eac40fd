package remote

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"time"
)

// dialAsChild makes the test binary a process that connects to the socket
// at its value, sends a request and prints what came back.
const dialAsChild = "CODEWHALE_REMOTE_TEST_DIAL"

// idleAsChild makes the test binary a process that says "idle" and waits
// until its standard input closes: a codewhale-ls build that answers
// nothing, for an impostor to exec into.
const idleAsChild = "CODEWHALE_REMOTE_TEST_IDLE"

func idleUntilStdinCloses() int {
	fmt.Println("idle")
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// nobody is the uid of the second user: a uid no process of the test runs as.
const nobody = 65534

func dialAndReport(path string) int {
	conn, err := net.DialTimeout("unix", path, 5*time.Second)
	if err != nil {
		fmt.Printf("dial: %v\n", err)
		return 0
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(conn, `{"agent":"codex","workspace":"/","deadline":"%s","call":{"tool":"exec_shell","input":{"command":"ls"}}}`+"\n",
		time.Now().Add(time.Minute).Format(time.RFC3339Nano))
	reply, err := bufio.NewReader(io.LimitReader(conn, maxMessage)).ReadString('\n')
	fmt.Printf("connected: %q %v\n", reply, err)
	return 0
}
