package reservation

import (
	"strings"
	"testing"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// WriteTable's layout, written out by hand: the header, rows until
// P(needed) drops below TableCutoff, "... N more" with one empty cell per
// column, the last row, and the hint.
func TestWriteTableLayout(t *testing.T) {
	rows := []TableRow{
		{Length: 3600, Extra: []string{"2 GB"}, Checkpoint: true, Saved: 3000, ProbNeeded: 1},
		{Length: 7200, Extra: []string{"4 GB"}, Saved: 3000, ProbNeeded: 0.5},
		{Length: 60, Extra: []string{"4 GB"}, Saved: 3000, ProbNeeded: 1e-4},
		{Length: 60, Extra: []string{"4 GB"}, Saved: 3000, ProbNeeded: 1e-5},
		{Length: 120, Extra: []string{"8 GB"}, Saved: 3000, ProbNeeded: 1e-6},
	}
	var b strings.Builder
	if err := WriteTable(&b, []string{"memory"}, rows, false, "--all"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := [][]string{
		{"#", "request", "sbatch", "--time", "memory", "checkpoint", "progress", "saved", "P(needed)"},
		{"1", "1h00m", "01:00:00", "2", "GB", "yes", "50m00s", "1"},
		{"2", "2h00m", "02:00:00", "4", "GB", "no", "50m00s", "0.5"},
		{"...", "2", "more", "<", "0.001"},
		{"5", "2m00s", "00:02:00", "8", "GB", "no", "50m00s", "1e-06"},
		{"(--all", "lists", "every", "reservation)"},
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	for i, w := range want {
		if got := strings.Fields(lines[i]); strings.Join(got, " ") != strings.Join(w, " ") {
			t.Errorf("line %d: %q, want fields %q", i+1, lines[i], w)
		}
	}
	b.Reset()
	if err := WriteTable(&b, nil, rows, true, "--all"); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n"); n != 6 || strings.Contains(b.String(), "more") {
		t.Errorf("all rows: %d lines\n%s", n, b.String())
	}
}

// The guarantee line and the warnings of a plan, checked against the
// paper's statements: a DP plan on a grid states Theorem 3's factor, a
// periodic plan none, and a restricted class that loses to another is
// flagged.
func TestGuaranteeTextAndWarnings(t *testing.T) {
	law := distribution.Uniform{A: 0, B: 72000}
	o := Options{Costs: ReservationOnly(3600, 3600), N: 300, Baselines: true}
	r, err := Plan(law, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := GuaranteeText(r); got != "strategy: dyn-prog-count on 300 grid points (guaranteed within a factor 1+0.245 of the optimum)" {
		t.Errorf("got %q", got)
	}
	o.Algorithm = AlgoNoCkptPer
	r, err = Plan(law, o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(GuaranteeText(r), "no guarantee") {
		t.Errorf("periodic: %q", GuaranteeText(r))
	}
	w := Warnings(r, law, o)
	if len(w) != 1 || !strings.Contains(w[0], "not the cheapest") || !strings.Contains(w[0], "--strategy dyn-prog-count") {
		t.Errorf("warnings %q", w)
	}
	heavy := distribution.Pareto{Xm: 60, Alpha: 0.9}
	r, err = Plan(heavy, Options{Costs: ReservationOnly(60, 60), N: 300})
	if err != nil {
		t.Fatal(err)
	}
	if w := Warnings(r, heavy, Options{}); len(w) != 1 || !strings.Contains(w[0], "infinite mean") {
		t.Errorf("heavy tail: %q", w)
	}
}
