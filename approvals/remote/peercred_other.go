//go:build !linux

package remote

import (
	"errors"
	"net"
)

// readFromCodewhaleLS is not implemented here either: no reply is read.
func readFromCodewhaleLS(*net.UnixConn) ([]byte, error) {
	return nil, errors.New("the writer of the server's reply cannot be checked on this platform")
}

// peerUID is not implemented here: every peer is refused (fail closed).
func peerUID(*net.UnixConn) (int, error) {
	return -1, errors.New("peer credentials cannot be checked on this platform")
}

// checkServerIdentity is not implemented here either; peerUID has
// refused the peer already.
func checkServerIdentity(*net.UnixConn) error {
	return errors.New("the server's identity cannot be checked on this platform")
}
