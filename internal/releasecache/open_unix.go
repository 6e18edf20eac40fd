//go:build unix

package releasecache

import "syscall"

// openFlags keeps open(2) from blocking on a FIFO and from following a
// final symlink.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOFOLLOW
