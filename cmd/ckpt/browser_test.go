package main

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/color/palette"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
)

// chromium returns the path of a headless-capable Chromium, or skips.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH (apt-get install chromium): the browser tests are skipped")
	return ""
}

// visit loads path in a new tab of the package's Chromium at width ×
// height, and returns the console messages (and uncaught exceptions) seen
// while it loaded, its DOM and a screenshot.
func visit(t *testing.T, path string, width, height int) ([]string, string, image.Image) {
	t.Helper()
	b := theBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	p, err := b.newPage(ctx)
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, b.stderr.String())
	}
	defer p.close()
	console, err := p.load(ctx, path, width, height)
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	dom, err := p.dom(ctx)
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	shot, err := p.screenshot(ctx)
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	return append(console, p.drain()...), dom, img
}

// rendered is what a browser made of one HTML file.
type rendered struct {
	dom  string
	shot image.Image
}

// render loads path in headless Chromium, fails on any console message,
// and returns the DOM after loading and a screenshot of width × height.
func render(t *testing.T, path string, width, height int) rendered {
	t.Helper()
	console, dom, shot := visit(t, path, width, height)
	if len(console) > 0 {
		t.Errorf("%s: console messages:\n%s", path, strings.Join(console, "\n"))
	}
	return rendered{dom: dom, shot: shot}
}

// assertNotBlank fails unless the screenshot is not blank.
func assertNotBlank(t *testing.T, name string, img image.Image) {
	t.Helper()
	if off := offBackground(img); off < 0.01 {
		t.Errorf("%s: screenshot is blank (%.4f of the pixels off the background)", name, off)
	}
}

// offBackground is the fraction of the pixels that differ from the most
// common colour: 0 for a single-colour image; a page with text and
// figures has more than 1 %.
func offBackground(img image.Image) float64 {
	counts := map[[4]uint32]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			counts[[4]uint32{r, g, bl, a}]++
		}
	}
	most := 0
	for _, c := range counts {
		most = max(most, c)
	}
	total := b.Dx() * b.Dy()
	return float64(total-most) / float64(max(total, 1))
}

// TestBrowserChecksCanFail loads a page with a script error and no
// content: the console scan and the blankness check must both fire.
func TestBrowserChecksCanFail(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "bad.html")
	page := "<!DOCTYPE html><html><body><script>console.error('boom'); undefinedFn();</script></body></html>"
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	msgs, _, img := visit(t, path, 400, 300)
	if len(msgs) != 2 {
		t.Errorf("console scan found %d messages, want 2 (boom, ReferenceError): %q", len(msgs), msgs)
	}
	if off := offBackground(img); off != 0 {
		t.Errorf("blank page: %.4f of the pixels off the background, want 0", off)
	}
}

// saveScreenshot writes img to $CKPT_SCREENSHOTS/name.png when that
// variable names a folder (the README's pictures: CKPT_SCREENSHOTS=docs/img),
// reduced to the 216 web-safe colours plus 40 greys (antialiased text
// stays smooth) so that the committed files stay small.
func saveScreenshot(t *testing.T, name string, img image.Image) {
	dir := os.Getenv("CKPT_SCREENSHOTS")
	if dir == "" {
		return
	}
	pal := append(color.Palette{}, palette.WebSafe...)
	for i := 0; i < 40; i++ {
		v := uint8(3 + i*252/39)
		pal = append(pal, color.Gray{Y: v})
	}
	small := image.NewPaletted(img.Bounds(), pal)
	draw.Draw(small, small.Rect, img, img.Bounds().Min, draw.Src)
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, small); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

var headingRe = regexp.MustCompile(`<h([1-3])[^>]*>([^<]*)`)

// TestBrowserReport renders the report of a quick reproduction.
func TestBrowserReport(t *testing.T) {
	t.Parallel()
	chromium(t)
	out := t.TempDir()
	if _, stderr, code := run(t, "", "repro", "reservation", "--quick", "--out", out); code != 0 {
		t.Fatalf("repro: exit %d: %s", code, stderr)
	}
	if _, stderr, code := run(t, "", "report", out); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	r := render(t, filepath.Join(out, "report.html"), 1100, 900)
	svgs, _ := filepath.Glob(filepath.Join(out, "reservation", "*.svg"))
	checkDOM(t, r.dom, len(svgs), "ckpt reproductions", "Summary", "Comparisons with the paper", "Figures", "Findings")
	assertNotBlank(t, "report", r.shot)
	saveScreenshot(t, "report", r.shot)
}

// checkDOM checks the rendered DOM's figures (each with its SVG or image
// laid out) and headings.
func checkDOM(t *testing.T, dom string, figures int, headings ...string) {
	t.Helper()
	if n := strings.Count(dom, "<figure>"); n != figures {
		t.Errorf("DOM has %d figures, want %d", n, figures)
	}
	if n := strings.Count(dom, "<svg ") + strings.Count(dom, "<img "); n < figures {
		t.Errorf("DOM has %d pictures for %d figures", n, figures)
	}
	var got []string
	for _, m := range headingRe.FindAllStringSubmatch(dom, -1) {
		got = append(got, m[2])
	}
	all := strings.Join(got, "|")
	for _, h := range headings {
		if !strings.Contains(all, h) {
			t.Errorf("DOM lacks heading %q (headings: %s)", h, all)
		}
	}
}

// TestBrowserReservePage renders `ckpt reserve --html`.
func TestBrowserReservePage(t *testing.T) {
	t.Parallel()
	chromium(t)
	page := filepath.Join(t.TempDir(), "plan.html")
	if _, stderr, code := run(t, "", "reserve", "--html", page); code != 0 {
		t.Fatalf("reserve: exit %d: %s", code, stderr)
	}
	checkPage(t, "reserve", page, 1100, 1500, 1, "Reservation plan", "Walltime density, reservation ends", "Slurm --time")
}

// TestBrowserCapacityPage renders `ckpt capacity simulate --html`.
func TestBrowserCapacityPage(t *testing.T) {
	t.Parallel()
	chromium(t)
	page := filepath.Join(t.TempDir(), "cap.html")
	if _, stderr, code := run(t, "", "capacity", "simulate", "--p-max", "100", "--sections", "40", "--strategies", "greedy-goodput,dp-yield", "--html", page); code != 0 {
		t.Fatalf("capacity simulate: exit %d: %s", code, stderr)
	}
	r := render(t, page, 1100, 1300)
	checkDOM(t, r.dom, 1, "Capacity simulation")
	if !strings.Contains(r.dom, "greedy-goodput on uniform") {
		t.Error("DOM lacks the panel title")
	}
	assertNotBlank(t, "capacity", r.shot)
	saveScreenshot(t, "capacity", r.shot)
}

// checkPage renders page at width × height and checks it: the heading and
// figure count, every wanted text in the DOM, a non-blank screenshot,
// saved under name for the README.
func checkPage(t *testing.T, name, page string, width, height, figures int, heading string, wants ...string) {
	t.Helper()
	r := render(t, page, width, height)
	checkDOM(t, r.dom, figures, heading)
	for _, want := range wants {
		if !strings.Contains(r.dom, want) {
			t.Errorf("DOM lacks %q", want)
		}
	}
	assertNotBlank(t, name, r.shot)
	saveScreenshot(t, name, r.shot)
}

// TestBrowserIntervalPage renders `ckpt interval --html` with a trace.
func TestBrowserIntervalPage(t *testing.T) {
	chromium(t)
	lanl := datadirtest.ForTest(t, "failures", "LA-UR-05-7318-failure-data-1996-2005.csv")
	page := filepath.Join(t.TempDir(), "interval.html")
	t.Chdir(filepath.Dir(lanl)) // the page names the file as given: no path of this machine in the screenshot
	if _, stderr, code := run(t, "", "interval", "--te", "1d", "--ckpt", "5m", "--lanl", filepath.Base(lanl), "--system", "20", "--html", page); code != 0 {
		t.Fatalf("interval: exit %d: %s", code, stderr)
	}
	checkPage(t, "interval", page, 1100, 1400, 1, "Checkpoint intervals", "Expected wall-clock time against the number of intervals", "Failure law: LANL system 20", "exact replay (s)")
}

// TestBrowserProfilePage renders `ckpt reserve --profile --html`.
func TestBrowserProfilePage(t *testing.T) {
	t.Parallel()
	chromium(t)
	page := filepath.Join(t.TempDir(), "memory.html")
	if _, stderr, code := run(t, "", "reserve", "--profile", "slant", "--mem-strategy", "mem-all-ckpt-v2", "--html", page); code != 0 {
		t.Fatalf("reserve --profile: exit %d: %s", code, stderr)
	}
	checkPage(t, "profile", page, 1100, 1400, 1, "Time and memory reservations", "slant: memory over time and the mem-all-ckpt-v2 reservations", "Phases: probability that each task runs", "Slurm --time")
}

// TestBrowserChainPage renders `ckpt chain status --html`.
func TestBrowserChainPage(t *testing.T) {
	t.Parallel()
	chromium(t)
	page := filepath.Join(t.TempDir(), "chain.html")
	if _, stderr, code := run(t, "", "chain", "status", chainForPicture(t), "--html", page); code != 0 {
		t.Fatalf("chain status: exit %d: %s", code, stderr)
	}
	checkPage(t, "chain", page, 1100, 900, 1, "Reservation chain toy-1", "Chain toy-1 (toy): 4 reservations", "pending: projected after the previous one", "checkpointed")
}
