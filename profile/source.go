package profile

import (
	"fmt"
	"strings"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// Source is an App ready for planning, with where it came from.
type Source struct {
	App *App
	// Checkpoint is the checkpoint cost a profile file gives (nil when it
	// gives none, and for built-in profiles and past runs).
	Checkpoint *CheckpointCost
	// Restart is the restart cost a profile file gives (nil when none).
	Restart *float64
	// History holds the past total walltimes when the App was fitted to
	// runs (nil otherwise): the input of NEURO.
	History []float64
	// Desc says where the App comes from, for reports and error messages:
	// "built-in profile slant", "profile app.yaml", "88 runs in DIR, normal
	// fit per task".
	Desc string
	// Runs is the number of runs fitted; Dropped the runs ReadRuns left out.
	Runs    int
	Dropped []Dropped
}

// OpenProfile returns the built-in profile of that name (Builtin) or else
// reads the profile file at that path (Load). An App without a name takes
// the path as its name.
func OpenProfile(name string) (*Source, error) {
	if b, ok := Builtin(name); ok {
		return &Source{App: b, Desc: "built-in profile " + name}, nil
	}
	p, err := Load(name)
	if err != nil {
		return nil, err
	}
	if p.App.Name == "" {
		p.App.Name = name
	}
	return &Source{App: p.App, Checkpoint: p.Checkpoint, Restart: p.Restart, Desc: "profile " + name}, nil
}

// FitSource fits one law of family per task to the runs of set, read from
// dir (FitApp), and describes the result. Errors name dir.
func FitSource(dir string, set *RunSet, family string) (*Source, error) {
	if err := CheckTaskFamily(family); err != nil {
		return nil, err
	}
	app, err := FitApp(dir, set.Runs, family)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	n := len(set.Runs)
	how := family + " fit per task"
	desc := fmt.Sprintf("%d runs in %s, %s", n, dir, how)
	if len(set.Dropped) > 0 {
		desc = fmt.Sprintf("%d of %d runs in %s, those segmented into %d phases; %s", n, n+len(set.Dropped), dir, set.Phases, how)
	}
	return &Source{App: app, History: Walltimes(set.Runs), Desc: desc, Runs: n, Dropped: set.Dropped}, nil
}

// CheckTaskFamily refuses the fit families that cannot model a task for the
// planner: "empirical" (a law per task of only the observed durations) and
// "auto" (a family per task chosen by BIC: on the 88 DRD runs the least-BIC
// family of task 6 is a Pareto whose far tail stretches the model's time
// grid until the plan is wrong, and 4-parameter truncated normals win four
// tasks by over-fitting).
func CheckTaskFamily(family string) error {
	switch family {
	case "empirical":
		return fmt.Errorf("an empirical law per task keeps only the observed durations; give a family (normal, the paper's choice, or %s)", OtherFamilies())
	case "auto":
		return fmt.Errorf("choosing a family per task by BIC over-fits a few runs (on SLANT it picks a Pareto tail for task 6); give a family (normal, the paper's choice, or %s)", OtherFamilies())
	}
	return nil
}

// OtherFamilies lists the fit families other than the paper's normal,
// comma-separated.
func OtherFamilies() string {
	var out []string
	for _, f := range distribution.FitFamilies() {
		if f != "normal" {
			out = append(out, f)
		}
	}
	return strings.Join(out, ", ")
}

// DroppedSummary says in one line which whole-run traces ReadRuns left out
// of the set read from dir (at most 10 named), or "" when none was.
func (s *RunSet) DroppedSummary(dir string) string {
	if len(s.Dropped) == 0 {
		return ""
	}
	const listed = 10
	var names []string
	for i, d := range s.Dropped {
		if i == listed {
			names = append(names, fmt.Sprintf("and %d more", len(s.Dropped)-listed))
			break
		}
		names = append(names, fmt.Sprintf("%s (%d phases)", d.ID, d.Phases))
	}
	return fmt.Sprintf("%s: kept %d of %d runs, those segmented into %d phases; dropped %s",
		dir, len(s.Runs), len(s.Runs)+len(s.Dropped), s.Phases, strings.Join(names, ", "))
}
