package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
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
	shared, err := filepath.Abs("../../../shared")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(shared, "data")); err != nil {
		t.Skip("../shared/data not available")
	}
	exs := readmeExamples(string(text))
	if len(exs) < 8 {
		t.Fatalf("found only %d README examples with output", len(exs))
	}
	root := t.TempDir()
	if err := os.Symlink(shared, filepath.Join(root, "shared")); err != nil {
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
