package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `iosim run --plot/--html/--timeline` writes the pictures and still
// prints its report; bad values are usage errors naming them.
func TestIOSimRunPictures(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	svg, png, page := filepath.Join(dir, "run.svg"), filepath.Join(dir, "run.png"), filepath.Join(dir, "run.html")
	args := []string{"iosim", "run", "--seeds", "2", "--span", "4d", "--strategies", "oblivious-daly,least-waste"}
	stdout, stderr, code := run(t, "", append(args, "--plot", svg, "--html", page, "--timeline", "1d:1.25d")...)
	if code != 0 || !strings.Contains(stdout, "least-waste") {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Waste of each strategy", "least-waste: the file system from 1d00h to 1d06h", "time in the run (h)"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	h, err := os.ReadFile(page)
	if err != nil || strings.Count(string(h), "<figure>") != 3 || !strings.Contains(string(h), "I/O strategies on cielo") {
		t.Fatalf("page: %v, %d figures", err, strings.Count(string(h), "<figure>"))
	}
	if stdout, _, code := run(t, "", append(args, "--plot", png, "--json")...); code != 0 || !strings.HasPrefix(stdout, "{") {
		t.Fatalf("--plot .png --json: exit %d, %.40q", code, stdout)
	}
	if fi, err := os.Stat(png); err != nil || fi.Size() < 1000 {
		t.Fatalf("png: %v", err)
	}
	for _, bad := range [][]string{
		{"--plot", filepath.Join(dir, "run.pdf")},
		{"--timeline", "6h"}, // no picture to draw it in
		{"--plot", svg, "--timeline", "2d:1d"},
		{"--plot", svg, "--timeline", "3d:5d"}, // after the runs stop (4d − 1d)
		{"--plot", svg, "--timeline", "soon"},
	} {
		_, stderr, code := run(t, "", append(args, bad...)...)
		if code != 2 || !strings.Contains(stderr, bad[len(bad)-1]) {
			t.Errorf("%v: exit %d, %q; want 2 naming the value", bad, code, stderr)
		}
	}
}

// TestBrowserIOSimPage renders `ckpt iosim run --html --timeline`.
func TestBrowserIOSimPage(t *testing.T) {
	t.Parallel()
	chromium(t)
	page := filepath.Join(t.TempDir(), "iosim.html")
	if _, stderr, code := run(t, "", "iosim", "run", "--seeds", "2", "--span", "4d", "--strategies", "oblivious-daly,ordered-daly,least-waste",
		"--html", page, "--timeline", "1d:1.25d"); code != 0 {
		t.Fatalf("iosim run: exit %d: %s", code, stderr)
	}
	checkPage(t, "iosim", page, 1100, 1500, 4, "I/O strategies on cielo", "Waste of each strategy", "ordered-daly: the file system from", "ckpt slowdown")
}
