package report

import (
	"testing"

	"github.com/ckpt-hpc/ckpt/usage"
)

func TestCheckPlotPath(t *testing.T) {
	for path, ok := range map[string]bool{"": true, "a.svg": true, "dir/A.PNG": true, "a.svg.png": true,
		"a.gif": false, "a": false, "svg": false, "a.svg/": false, ".svgz": false, "a.pdf": false} {
		err := CheckPlotPath(path)
		if (err == nil) != ok || err != nil && (!usage.Is(err) || err.Error() != `--plot "`+path+`": want a .svg or .png file`) {
			t.Errorf("CheckPlotPath(%q) = %v, want ok %v", path, err, ok)
		}
	}
}
