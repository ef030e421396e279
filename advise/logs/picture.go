package logs

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ckpt-hpc/ckpt/advise"
	"github.com/ckpt-hpc/ckpt/plot"
	"github.com/ckpt-hpc/ckpt/report"
)

// figure is the replay's picture: one point per policy, mean turnaround
// relative to the users' requests against the kill rate.
func (r ReplayReport) figure() (plot.Figure, []plot.Series) {
	fig := plot.Figure{Title: r.Log, XLabel: "jobs killed at least once (%)",
		YLabel: "mean turnaround vs users' requests (%)", RefY: []float64{0}, Legend: plot.LegendBottomRight}
	series := make([]plot.Series, len(r.Policies))
	for i, p := range r.Policies {
		series[i] = plot.Series{Name: p.Policy, X: []float64{100 * p.KillRate}, Y: []float64{100 * p.VsUser}}
	}
	for k, name := range []string{"ckpt, other priors", "ckpt+abstain, other priors"} {
		s := plot.Series{Name: name}
		for i := k; i < len(r.Points); i += 2 {
			s.X, s.Y = append(s.X, 100*r.Points[i].KillRate), append(s.Y, 100*r.Points[i].VsUser)
		}
		if len(s.X) > 0 {
			series = append(series, s)
		}
	}
	return fig, series
}

// Plot draws the picture into an SVG or PNG file (by path's extension).
func (r ReplayReport) Plot(path string) error {
	fig, series := r.figure()
	return plot.Scatter(path, fig, series...)
}

// Page is the replay as an HTML page: the picture and the table.
func (r ReplayReport) Page() (report.Page, error) {
	dir, err := os.MkdirTemp("", "ckpt-advise-*")
	if err != nil {
		return report.Page{}, err
	}
	defer os.RemoveAll(dir)
	svg := filepath.Join(dir, "replay.svg")
	if err := r.Plot(svg); err != nil {
		return report.Page{}, err
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		return report.Page{}, err
	}
	t := report.Table{Caption: "one line per policy, on the same jobs",
		Header: []string{"policy", "mean turnaround (h)", "vs user", "reserved/used", "kill rate", "submissions/job", "lost node-h", "changed"}}
	for _, p := range append(append([]advise.PolicyResult(nil), r.Policies...), r.Points...) {
		t.Rows = append(t.Rows, []string{p.Policy, fmt.Sprintf("%.3f", p.MeanTurnaround/3600), fmt.Sprintf("%+.1f%%", 100*p.VsUser),
			fmt.Sprintf("%.2f", p.ReservedOverUsed), fmt.Sprintf("%.1f%%", 100*p.KillRate), fmt.Sprintf("%.3f", p.SubmissionsPerJob),
			fmt.Sprintf("%.0f", p.LostNodeHours), fmt.Sprint(p.Changed)})
	}
	intro := fmt.Sprintf("%d jobs replayed with no look-ahead; %d hit their limit in the log and are played as if their length were the request. "+
		"Waits from wait = %.3g·t + %.0f s.", r.Jobs, r.Censored, r.Wait.A, r.Wait.B)
	return report.Page{Title: "ckpt advise replay: " + r.Log, Intro: intro,
		Figures: []report.Figure{{Name: "replay.svg", Caption: "turnaround against kills, one point per policy", SVG: b}},
		Tables:  []report.Table{t}}, nil
}
