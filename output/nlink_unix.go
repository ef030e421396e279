//go:build unix

package output

import (
	"os"
	"syscall"
)

// nlink is the number of hard links to the file fi describes.
func nlink(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
