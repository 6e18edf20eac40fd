//go:build !unix

package releasecache

// openFlags: the Lstat before the open is the only check here.
const openFlags = 0
