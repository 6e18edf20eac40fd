package remote

import (
	"net"
)

// peerUID is the uid of the process at the other end of conn, as the
// kernel recorded it at connect (SO_PEERCRED): a client cannot forge it.
func peerUID(conn *net.UnixConn) (int, error) {
	cred, err := peerCred(conn)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
