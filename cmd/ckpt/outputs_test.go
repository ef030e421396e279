package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The output flags of the audit of c250f14: a failed sweep keeps the old
// --csv (it was emptied) and its rows go to PATH.partial; one file under
// two spellings, or under two flags, is refused up front (one output was
// silently lost); --json with --csv - is refused by every sweep (iosim
// sweep printed both, interval simulate dropped the JSON); an output in a
// missing folder is a usage error before any work (it was exit 1 after);
// a folder as output is refused before any work too (exit 1, as before).
func TestOutputFlagsAudit(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	old := "item,point,rep,seed,v\n0,0,0,1,a\n"
	if err := os.WriteFile(p("old.csv"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p("adir.jsonl"), 0o755); err != nil {
		t.Fatal(err)
	}
	iosweep := []string{"iosim", "sweep", "--span", "5d", "--seeds", "1", "--values", "40GB/s", "--strategies", "least-waste"}
	wsweep := []string{"reserve", "sweep", "--ckpt", "1m,2m", "--dist", "weibull:k=1,lambda=1h"}
	isim := []string{"interval", "simulate", "--te", "1d", "--ckpt", "5m", "--mtbf", "6h", "--runs", "3"}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{append(iosweep, "--max-events", "1", "--csv", p("old.csv")), 1, "aborted"},
		{append(iosweep, "--csv", p("old.csv"), "--jsonl", p("adir.jsonl")), 1, `--jsonl "` + p("adir.jsonl") + `": is a folder`},
		{append(wsweep, "--csv", p("same.out"), "--jsonl", dir+"/./same.out"), 2, "are the same file"},
		{[]string{"reserve", "--plot", p("pp.svg"), "--html", p("pp.svg")}, 2, `--plot "` + p("pp.svg") + `" and --html "` + p("pp.svg") + `" are the same file`},
		{[]string{"iosim", "run", "--span", "5d", "--seeds", "1", "--swf", p("sw.svg"), "--plot", p("sw.svg")}, 2, "--swf"},
		{append(iosweep, "--json", "--csv", "-"), 2, "only one of --csv -, --jsonl - and --json"},
		{append(isim, "--json", "--csv", "-"), 2, "only one of --csv -, --jsonl - and --json"},
		{[]string{"reserve", "--plot", p("no/p.svg")}, 2, `--plot "` + p("no/p.svg") + `": the folder`},
		{[]string{"interval", "--te", "1d", "--ckpt", "5m", "--mtbf", "6h", "--html", p("no/p.html")}, 2, "--html"},
		{append(isim, "--csv", p("no/r.csv")), 2, "--csv"},
		{append(iosweep, "--csv", p("no/r.csv")), 2, "--csv"},
	} {
		out, errOut, code := run(t, "", tc.args...)
		if code != tc.code || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and one line naming %q", tc.args, code, out, errOut, tc.code, tc.want)
		}
	}
	if b, _ := os.ReadFile(p("old.csv")); string(b) != old {
		t.Errorf("old.csv became %q", b)
	}
	if es, _ := os.ReadDir(dir); len(es) != 2 {
		t.Errorf("%d files in the folder, want old.csv and adir.jsonl only", len(es))
	}
}

// Ctrl-C during iosim sweep --csv old.csv leaves old.csv as it was (it was
// replaced by the rows so far) and the rows so far, whole lines, in
// old.csv.partial, which the error names. The cancellation comes once the
// first JSON line reaches a pipe given as --jsonl: rows were written (the
// CSV sink gets each row first), and the sweep cannot end before it, as it
// blocks once the pipe is full (it polled for the temporary file instead,
// a bet on timing).
func TestIOSimSweepInterruptedKeepsOldCSV(t *testing.T) {
	dir := t.TempDir()
	csv, fifo := filepath.Join(dir, "old.csv"), filepath.Join(dir, "rows.jsonl")
	if err := os.WriteFile(csv, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes:", err)
	}
	pipe, err := os.OpenFile(fifo, os.O_RDWR, 0) // a reader that never sees EOF
	if err != nil {
		t.Fatal(err)
	}
	defer pipe.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		br := bufio.NewReader(pipe)
		if _, err := br.ReadString('\n'); err == nil {
			cancel()
		}
		io.Copy(io.Discard, br) // until pipe.Close
	}()
	var out, errb bytes.Buffer
	code := execute(ctx, []string{"iosim", "sweep", "--span", "2d", "--skip", "0", "--seeds", "20000", "--values", "40GB/s",
		"--strategies", "least-waste", "--workers", "1", "--csv", csv, "--jsonl", fifo}, strings.NewReader(""), &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "canceled") || !strings.Contains(errb.String(), csv+".partial") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if b, _ := os.ReadFile(csv); string(b) != "old\n" {
		t.Errorf("old.csv became %q", b)
	}
	b, err := os.ReadFile(csv + ".partial")
	if err != nil || len(b) == 0 || b[len(b)-1] != '\n' || !strings.HasPrefix(string(b), "item,point,rep,seed") {
		t.Errorf("partial rows %.200q, %v", b, err)
	}
}
