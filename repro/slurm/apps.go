package slurm

import (
	"fmt"

	"github.com/ckpt-hpc/ckpt/distribution"
)

// App is one neuroscience application of Table 3.
type App struct {
	// Name is the paper's short name.
	Name string
	// Law is the walltime law as a distribution spec (seconds).
	Law string
	// C and R are the checkpoint and restart times in seconds.
	C, R float64
}

// Apps returns Table 3 (see the package doc for the reading of SD's law).
func Apps() []App {
	return []App{
		{"Qball", "gamma:alpha=1.18,beta=0.029411764705882353,loc=146,b=407", 90, 40},
		{"SD", "weibull:k=1.043811,lambda=1174.322466,loc=2760,b=8280", 1500, 600},
		{"FCA", "gamma:alpha=3.6,beta=0.013888888888888888,loc=165,b=1003", 150, 100},
	}
}

// Mix is Table 4's workload: jobs per application, 500 in all.
var Mix = map[string]int{"Qball": 100, "SD": 200, "FCA": 200}

// Dist parses the application's law.
func (a App) Dist() (distribution.Distribution, error) {
	d, err := distribution.Parse(a.Law)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", a.Name, err)
	}
	return d, nil
}
