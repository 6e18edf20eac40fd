package remote

import (
	"fmt"
	"net"
	"os"
)

// checkPeer admits only a peer running as us: the other end of the socket
// either asks for our policy to be applied (server side) or answers for our
// user (client side), and neither may be another user.
func checkPeer(conn *net.UnixConn) error {
	uid, err := peerUID(conn)
	if err != nil {
		return err
	}
	return samePeer(uid, os.Getuid())
}

func samePeer(peer, self int) error {
	if peer != self {
		return fmt.Errorf("peer runs as uid %d, not as this user (uid %d)", peer, self)
	}
	return nil
}
