package remote

import (
	"net"
	"strconv"
	"time"
)

// consolePID names the process serving the console socket at path, as
// the kernel recorded it at connect, or says it is unknown.
func consolePID(path string) string {
	conn, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		return "its process id unknown"
	}
	defer conn.Close()
	pid, err := peerPID(conn.(*net.UnixConn))
	if err != nil {
		return "its process id unknown"
	}
	return "pid " + strconv.Itoa(pid)
}
