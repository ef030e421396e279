package report

import (
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/output"
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

// CheckPictures refuses, up front and as usage errors naming the flags, a
// picture and a page (or another output) on one file, and a file in a
// missing folder; distinct files in existing folders pass.
func TestCheckPictures(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, tc := range []struct {
		plot, html, swf, want string
	}{
		{"pp.svg", "pp.svg", "", `--plot "pp.svg" and --html "pp.svg" are the same file`},
		{"sw.svg", "", "./sw.svg", `--plot "sw.svg" and --swf "./sw.svg" are the same file`},
		{"", "p.html", dir + "/p.html", `--html "p.html" and --swf "` + dir + `/p.html" are the same file`},
		{"no/p.svg", "", "", `--plot "no/p.svg": the folder no does not exist`},
		{"", "no/p.html", "", `--html "no/p.html": the folder no does not exist`},
		{"p.gif", "", "", `--plot "p.gif": want a .svg or .png file`},
		{"p.svg", "p.html", "p.swf", ""},
		{"", "", "", ""},
	} {
		err := CheckPictures(tc.plot, tc.html, output.Path{Flag: "swf", Path: tc.swf})
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !usage.Is(err) || !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("CheckPictures(%q, %q, swf %q) = %v, want %q", tc.plot, tc.html, tc.swf, err, tc.want)
		}
	}
}
