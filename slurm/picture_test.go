package slurm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/ckpt-hpc/ckpt/plot/draw" // the renderer: the tests draw
)

// toyState is a chain of four one-hour reservations: two checkpointed,
// the third running for 30 minutes at now, the fourth not started.
func toyState() (*State, time.Time) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	st := &State{ID: "toy-1", Chain: Chain{Job: "job.sh", Name: "toy"}, Jobs: map[int]string{}, Outcomes: map[int]Outcome{}}
	for k := 1; k <= 4; k++ {
		st.Chain.Steps = append(st.Chain.Steps, Step{Time: 3600, Checkpoint: k < 4, CheckpointTime: 60, Milestone: float64(k) * 3000})
	}
	st.Outcomes[1] = Outcome{Reservation: 1, Outcome: OutcomeCheckpointed, Progress: 3000, Start: t0, End: t0.Add(time.Hour)}
	st.Outcomes[2] = Outcome{Reservation: 2, Outcome: OutcomeCheckpointed, Progress: 6000, Start: t0.Add(90 * time.Minute), End: t0.Add(150 * time.Minute)}
	st.Outcomes[3] = Outcome{Reservation: 3, Outcome: OutcomeRunning, Progress: 6000, Start: t0.Add(3 * time.Hour)}
	return st, t0.Add(210 * time.Minute)
}

// TestChainPanel checks the boxes against the records written out by
// hand: where each starts and ends (hours since the first start), which
// ran, which is projected, and the checkpoints.
func TestChainPanel(t *testing.T) {
	st, now := toyState()
	p := ChainPanel(st, now)
	type want struct {
		x0, x1, y float64
		solid     bool
	}
	wants := []want{
		{0, 1, 1, false}, {1.5, 2.5, 2, false}, {3, 4, 3, false}, // reserved
		{3.5, 4.5, 4, false},                                    // projected from the running one's now
		{0, 1, 1, true}, {1.5, 2.5, 2, true}, {3, 3.5, 3, true}, // ran
	}
	if len(p.Rects) != len(wants) {
		t.Fatalf("%d boxes, want %d: %+v", len(p.Rects), len(wants), p.Rects)
	}
	for i, w := range wants {
		r := p.Rects[i]
		if r.X0 != w.x0 || r.X1 != w.x1 || (r.Y0+r.Y1)/2 != w.y || r.Solid != w.solid {
			t.Errorf("box %d: %+v, want %+v", i, r, w)
		}
	}
	if len(p.Points) != 1 || len(p.Points[0].X) != 2 || p.Points[0].X[1] != 2.5 {
		t.Errorf("checkpoints %+v, want at 1 h and 2.5 h", p.Points)
	}
	if !strings.Contains(p.XLabel, "(h)") {
		t.Errorf("x label %q", p.XLabel)
	}
	st.Outcomes[3] = Outcome{Reservation: 3, Outcome: OutcomeDone, Progress: 8000, Start: now.Add(-30 * time.Minute), End: now}
	if n := len(ChainPanel(st, now).Rects); n != 6 {
		t.Errorf("chain done: %d boxes, want 6 (no projection of reservation 4)", n)
	}
}

// TestPlotChainSVGStructure is a golden check of structure, not pixels.
func TestPlotChainSVGStructure(t *testing.T) {
	st, now := toyState()
	path := filepath.Join(t.TempDir(), "chain.svg")
	if err := PlotChain(path, st, now); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Chain toy-1 (toy): 4 reservations", ">time since the first start (h)<", ">reservation<",
		">ran: checkpointed<", ">running<", ">pending: projected after the previous one<", ">checkpoint saved<"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	cs := ChainStatus{ID: "toy-1", Name: "toy", Reservations: 4, Outcome: "running", Jobs: []ReservationStatus{{Reservation: 1, Outcome: OutcomeCheckpointed, Progress: 3000}}}
	page, err := ChainPage(st, cs, now)
	if err != nil || len(page.Figures) != 1 || len(page.Tables[0].Rows) != 1 || page.Tables[0].Rows[0][6] != "2026-01-01 12:00:00Z" {
		t.Fatalf("page: %v %+v", err, page.Tables)
	}
}
