package remote

import (
	"errors"
	"fmt"
	"net"
	"os"
)

// errForgedReply: the reply on the socket was not written by a
// codewhale-ls process of this user (a process that took over the
// server's socket wrote it), so it is no answer and the call is denied.
var errForgedReply = errors.New("the reply was not written by the editor's codewhale-ls")

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
