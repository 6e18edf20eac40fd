package release

import (
	"fmt"
	"os"
	"syscall"
)

// fileIdentity is the device, inode and status-change time of info's
// file: a binary rewritten in place keeps its path but not its ctime.
func fileIdentity(info os.FileInfo) string {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("\x00%d\x00%d\x00%d.%09d", st.Dev, st.Ino, st.Ctim.Sec, st.Ctim.Nsec)
}
