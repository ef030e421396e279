package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir"
	"github.com/ckpt-hpc/ckpt/datadir/datadirtest"
	"github.com/ckpt-hpc/ckpt/interval"
)

// readmeExample is one "$ ckpt ..." block of the README: the command line
// (possibly over several lines, e.g. a quoted JSON piped in) and the output
// printed below it.
type readmeExample struct {
	line    int
	command string
	output  string
}

// readmeExamples extracts the examples with output from the README's plain
// fenced blocks whose first line starts with "$ ".
func readmeExamples(text string) []readmeExample {
	var out []readmeExample
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		if lines[i] != "```" || i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "$ ") {
			continue
		}
		ex := readmeExample{line: i + 2}
		j := i + 1
		cmd := strings.TrimPrefix(lines[j], "$ ")
		// A command continues while a single quote is open.
		for strings.Count(cmd, "'")%2 == 1 && j+1 < len(lines) {
			j++
			cmd += "\n" + lines[j]
		}
		var body []string
		for j++; j < len(lines) && lines[j] != "```"; j++ {
			body = append(body, lines[j])
		}
		ex.command, ex.output = cmd, strings.Join(body, "\n")
		out = append(out, ex)
		i = j
	}
	return out
}

// trimLines drops trailing blanks of every line and trailing empty lines.
func trimLines(s string) string {
	ls := strings.Split(strings.TrimRight(s, "\n "), "\n")
	for i := range ls {
		ls[i] = strings.TrimRight(ls[i], " \t")
	}
	return strings.Join(ls, "\n")
}

// TestREADMEExamples runs every README example that shows its output and
// compares the output, so that the README stays true as the code changes.
func TestREADMEExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every README example (about 15 s)")
	}
	runExamples(t, "README.md", 6)
}

// TestDocsExamples does the same for the pages of docs/.
func TestDocsExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example of docs/*.md (about 30 s)")
	}
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(pages) < 9 {
		t.Fatalf("docs pages: %v (%d found, want one per capability)", err, len(pages))
	}
	total := 0
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		total += len(readmeExamples(string(b)))
	}
	if total < 20 {
		t.Fatalf("found only %d examples with output in docs/*.md", total)
	}
	work := exampleLayout(t)
	for _, p := range pages {
		rel, _ := filepath.Rel("../..", p)
		t.Run(filepath.Base(p), func(t *testing.T) {
			t.Parallel()
			runExamplesIn(t, work, rel, 0)
		})
	}
}

// runExamples runs the examples of the Markdown file rel (a path from the
// repository's root), of which there must be at least min.
func runExamples(t *testing.T, rel string, min int) {
	runExamplesIn(t, exampleLayout(t), rel, min)
}

// exampleLayout makes a scratch copy of the layout (main/ beside
// shared/data, the repository's entries linked in) and returns its main/,
// so that the files an example writes land in a temporary folder. Without
// the shared data there is no shared/data: the examples that read it skip
// (runExamplesIn).
func exampleLayout(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if data, err := datadir.Find(""); err == nil {
		if data, err = filepath.Abs(data); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(root, "shared"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(data, filepath.Join(root, "shared", "data")); err != nil {
			t.Fatal(err)
		}
	}
	work := filepath.Join(root, "main")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	// The repository's files are linked in (examples/, testdata), so that
	// paths resolve while the files an example writes stay here.
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if err := os.Symlink(filepath.Join(repo, e.Name()), filepath.Join(work, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return work
}

// dataRef matches a file of the shared data named in an example.
var dataRef = regexp.MustCompile(`\.\./shared/data/([A-Za-z0-9_./-]+)`)

// dataFiles lists the files of the shared data an example reads: those
// its command names, and those its command reads without naming them.
func dataFiles(command string) [][]string {
	var out [][]string
	for _, m := range dataRef.FindAllStringSubmatch(command, -1) {
		out = append(out, strings.Split(strings.TrimRight(m[1], "/."), "/"))
	}
	if strings.Contains(command, "ckpt interval") && strings.Contains(command, "--memory") && !strings.Contains(command, "--blcr") {
		out = append(out, interval.BLCRDir) // the measured checkpoint costs
	}
	return out
}

// runExamplesIn runs the examples of the Markdown file rel in the layout
// work, each in parallel with the others. An example that reads the
// shared data skips without it, naming the file (datadirtest.ForTest).
func runExamplesIn(t *testing.T, work, rel string, min int) {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("../..", rel))
	if err != nil {
		t.Fatal(err)
	}
	exs := readmeExamples(string(text))
	if len(exs) < min {
		t.Fatalf("%s: found only %d examples with output, want %d", rel, len(exs), min)
	}
	path := filepath.Dir(ckptBin(t)) + string(os.PathListSeparator) + os.Getenv("PATH")
	for _, ex := range exs {
		t.Run(strings.Fields(ex.command)[0]+"_line"+strconv.Itoa(ex.line), func(t *testing.T) {
			t.Parallel()
			for _, f := range dataFiles(ex.command) {
				datadirtest.ForTest(t, f...)
			}
			cmd := exec.Command("bash", "-o", "pipefail", "-c", ex.command)
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "PATH="+path)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s line %d: %s: %v\n%s", rel, ex.line, ex.command, err, stderr.String())
			}
			if got, want := trimLines(stdout.String()), trimLines(ex.output); !matchLines(strings.Split(want, "\n"), strings.Split(got, "\n")) {
				t.Errorf("%s line %d: %s: output differs\n--- %s\n%s\n--- got\n%s", rel, ex.line, ex.command, rel, want, got)
			}
		})
	}
}

// matchLines matches output lines against README lines, where a line "..."
// stands for any number of lines and "..." inside a line for any text.
func matchLines(pat, got []string) bool {
	if len(pat) == 0 {
		return len(got) == 0
	}
	if strings.TrimSpace(pat[0]) == "..." {
		for k := 0; k <= len(got); k++ {
			if matchLines(pat[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && matchLine(pat[0], got[0]) && matchLines(pat[1:], got[1:])
}

// matchLine matches one line, "..." standing for any text.
func matchLine(pat, got string) bool {
	parts := strings.Split(pat, "...")
	if len(parts) == 1 {
		return pat == got
	}
	if !strings.HasPrefix(got, parts[0]) {
		return false
	}
	got = got[len(parts[0]):]
	for i, p := range parts[1:] {
		if i == len(parts)-2 {
			return strings.HasSuffix(got, p)
		}
		k := strings.Index(got, p)
		if k < 0 {
			return false
		}
		got = got[k+len(p):]
	}
	return true
}

// machinePath matches an absolute path of some machine's file system: a
// root folder such as /work, /home or /tmp followed by a name, at the start
// of a path (not inside a URL or a relative path such as ../shared/data).
// The folder names are spelled out here so that this file does not match.
var machinePath = regexp.MustCompile(`(^|[^A-Za-z0-9_.~$}/-])(/(` + strings.Join([]string{"wo" + "rk", "ho" + "me", "Us" + "ers", "ro" + "ot", "t" + "mp", "m" + "nt", "scr" + "atch"}, "|") + `)/[A-Za-z0-9_.-])`)

// TestNoMachinePathsInTrackedFiles: the product knows no machine's paths
// (data are found through --data, $CKPT_DATA or ../shared/data), so no
// tracked source, document, configuration or script names one. Temporary
// folders come from mktemp or t.TempDir, never from a literal.
func TestNoMachinePathsInTrackedFiles(t *testing.T) {
	out, err := exec.Command("git", "-C", "../..", "ls-files", "-z").Output()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("git ls-files: %v", err)
		}
		t.Skipf("git ls-files: %v (not a git checkout?)", err)
	}
	checked := 0
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		if !textFile(name) {
			continue
		}
		b, err := os.ReadFile(filepath.Join("../..", name))
		if err != nil {
			continue // deleted in the work tree
		}
		checked++
		for _, m := range machinePaths(string(b)) {
			t.Errorf("%s:%s", name, m)
		}
	}
	if checked < 20 {
		t.Fatalf("only %d tracked text files checked", checked)
	}
}

// machinePaths returns "line: machine path p" for each machine path in
// text, in one scan of the whole text (a newline is one of the characters
// the pattern accepts before a path, so this finds what a scan of each line
// finds, ten times faster).
func machinePaths(text string) []string {
	var found []string
	for _, loc := range machinePath.FindAllStringSubmatchIndex(text, -1) {
		start := strings.LastIndexByte(text[:loc[4]], '\n') + 1
		line, _, _ := strings.Cut(text[start:], "\n")
		found = append(found, fmt.Sprintf("%d: machine path %s", strings.Count(text[:start], "\n")+1, pathAt(line, loc[4]-start)))
	}
	return found
}

// pathAt returns the path that starts at byte i of line, up to a space or
// a quote.
func pathAt(line string, i int) string {
	end := strings.IndexAny(line[i:], " \t\"'`),;]")
	if end < 0 {
		return line[i:]
	}
	return line[i : i+end]
}

// textFile reports whether a tracked file is source, documentation,
// configuration or a script.
func textFile(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".go", ".md", ".yaml", ".yml", ".json", ".sh", ".txt", ".toml", ".mod", ".sbatch", ".py":
		return true
	}
	return strings.HasPrefix(name, ".ci/") || strings.HasPrefix(name, "scripts/")
}

func TestMachinePathPattern(t *testing.T) {
	root := "/" + "work"
	for _, s := range []string{root + "/shared/data", `"` + "/ho" + "me/u/x" + `"`, "(" + "/t" + "mp/new-repro)", "dir = " + "/Us" + "ers/me/ckpt"} {
		if !machinePath.MatchString(s) {
			t.Errorf("%q not flagged", s)
		}
	}
	for _, s := range []string{"../shared/data", "https://example.org" + root + "/x", "$HOME" + root + "/x", "/t" + "mp", "/dev/full", "out" + root + "/x", "mktemp -d", "${TMPDIR}" + root + "/x"} {
		if machinePath.MatchString(s) {
			t.Errorf("%q flagged", s)
		}
	}
	if got := pathAt(`x = "`+root+`/shared/data", y`, 5); got != root+"/shared/data" {
		t.Errorf("pathAt = %q", got)
	}
	text := "a\n" + root + "/x/y z\n../shared/data\nsee \"" + root + "/b\" and (" + "/t" + "mp/c)\n"
	want := []string{"2: machine path " + root + "/x/y", "4: machine path " + root + "/b", "4: machine path " + "/t" + "mp/c"}
	if got := machinePaths(text); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("machinePaths = %q, want %q", got, want)
	}
}

// mdLink matches a relative Markdown link's target (no scheme, no anchor).
var mdLink = regexp.MustCompile(`\]\(([^)#:\s]+)(#[^)]*)?\)`)

// TestDocsLinked: the README links every page of docs/ and every page it
// links exists; the pages link only files that exist; the README and
// BENCHMARKS.md stay short enough to read (issue 21: 350 and 200 lines).
func TestDocsLinked(t *testing.T) {
	linked := map[string]bool{}
	pages, _ := filepath.Glob("../../docs/*.md")
	for _, f := range append([]string{"../../README.md"}, pages...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target := filepath.Clean(filepath.Join(filepath.Dir(f), m[1]))
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s links %s: %v", filepath.Base(f), m[1], err)
			}
			if filepath.Base(f) == "README.md" {
				linked[target] = true
			}
		}
	}
	for _, name := range []string{"reservation", "profiles", "interval", "iosim", "capacity", "slurm", "coordinator", "formats", "reproductions", "architecture"} {
		p := filepath.Clean("../../docs/" + name + ".md")
		if !linked[p] {
			t.Errorf("the README does not link docs/%s.md", name)
		}
	}
	for _, p := range pages {
		if !linked[filepath.Clean(p)] {
			t.Errorf("the README does not link %s", p)
		}
	}
	for f, max := range map[string]int{"../../README.md": 350, "../../BENCHMARKS.md": 200} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), "\n"); n > max {
			t.Errorf("%s has %d lines, more than %d: move detail to docs/", filepath.Base(f), n, max)
		}
	}
}
