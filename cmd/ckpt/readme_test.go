package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/datadir"
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
// It runs in a scratch copy of the layout (main/ beside ../shared, the
// repository's entries linked in), so that files an example writes land in a
// temporary folder.
func TestREADMEExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every README example (about 15 s)")
	}
	text, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	data, err := filepath.Abs(datadir.ForTest(t))
	if err != nil {
		t.Fatal(err)
	}
	exs := readmeExamples(string(text))
	if len(exs) < 8 {
		t.Fatalf("found only %d README examples with output", len(exs))
	}
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "shared"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(data, filepath.Join(root, "shared", "data")); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(root, "main")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	// The repository's files are linked in (examples/, testdata), so that
	// README paths resolve while the files an example writes stay here.
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
	path := filepath.Dir(ckptBin) + string(os.PathListSeparator) + os.Getenv("PATH")
	for _, ex := range exs {
		t.Run(strings.Fields(ex.command)[0]+"_line"+strconv.Itoa(ex.line), func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command("bash", "-o", "pipefail", "-c", ex.command)
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "PATH="+path)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("README line %d: %s: %v\n%s", ex.line, ex.command, err, stderr.String())
			}
			if got, want := trimLines(stdout.String()), trimLines(ex.output); !matchLines(strings.Split(want, "\n"), strings.Split(got, "\n")) {
				t.Errorf("README line %d: %s: output differs\n--- README\n%s\n--- got\n%s", ex.line, ex.command, want, got)
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
		for i, line := range strings.Split(string(b), "\n") {
			if loc := machinePath.FindStringSubmatchIndex(line); loc != nil {
				t.Errorf("%s:%d: machine path %s", name, i+1, pathAt(line, loc[4]))
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d tracked text files checked", checked)
	}
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
}
