package slurm

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/units"
)

// Step is one reservation of a chain.
type Step struct {
	// Time is the reservation length in seconds; sbatch gets it rounded up
	// to whole minutes.
	Time float64 `json:"time"`
	// Mem is the memory to request (sbatch --mem syntax, e.g. "10G"); empty
	// leaves the cluster default.
	Mem string `json:"mem,omitempty"`
	// Checkpoint says the reservation ends with a checkpoint that takes
	// CheckpointTime seconds.
	Checkpoint     bool    `json:"checkpoint,omitempty"`
	CheckpointTime float64 `json:"checkpoint_time,omitempty"`
	// Restart says the reservation starts from the last checkpoint, which
	// takes RestartTime seconds to read.
	Restart     bool    `json:"restart,omitempty"`
	RestartTime float64 `json:"restart_time,omitempty"`
	// Milestone is the work done at the end of the reservation (seconds).
	Milestone float64 `json:"milestone"`
}

// ValidScale reports whether s can scale a chain's time: 0 (real time,
// or a default chosen elsewhere) or a factor in [1e-3, 1e6], within which
// every scaled length of a plan stays a representable duration.
func ValidScale(s float64) bool { return s == 0 || s >= 1e-3 && s <= 1e6 }

// Chain is a sequence of reservations for one job script.
type Chain struct {
	// Job is the path of the batch script to submit at every step; it runs
	// "ckpt run -- APP ARGS…" (or follows the CKPT_* protocol itself).
	Job string `json:"job"`
	// Name is the job name; reservation k is named Name.rk. Empty means the
	// job script's base name.
	Name string `json:"name"`
	// Extra holds further sbatch options added to every submission
	// (--partition, --account, --qos, --gres, --output, …).
	Extra []string `json:"sbatch_args,omitempty"`
	// Ahead is the number of reservations pending beyond the running one
	// (the rolling window); 0 submits every reservation up front.
	Ahead int `json:"ahead"`
	// Scale runs the chain faster than its plan: reservation k lasts
	// Steps[k].Time/Scale seconds of real time (the runner enforces it;
	// sbatch --time is that rounded up to whole minutes), and the app does
	// Scale seconds of the plan's work per real second. 0 or 1: real time.
	Scale float64 `json:"scale,omitempty"`
	Steps []Step  `json:"steps"`
}

// TimeScale is c.Scale, or 1 when unset.
func (c Chain) TimeScale() float64 {
	if c.Scale > 0 {
		return c.Scale
	}
	return 1
}

// DefaultAhead is the default rolling window.
const DefaultAhead = 2

var (
	safeName = regexp.MustCompile(`^[A-Za-z0-9._+-]+$`)
	// Options that the chain sets itself and that Extra must not override.
	ownOptions = []string{"--dependency", "-d", "--kill-on-invalid-dep", "--job-name", "-J", "--comment", "--time", "-t", "--export", "--parsable", "--signal"}
)

// JobName returns the name used for the reservations (without ".rk").
func (c Chain) JobName() string {
	if c.Name != "" {
		return c.Name
	}
	base := strings.TrimSuffix(filepath.Base(c.Job), filepath.Ext(c.Job))
	if !safeName.MatchString(base) {
		return "ckpt"
	}
	return base
}

// Validate reports the first problem that would make the chain wrong.
func (c Chain) Validate() error {
	if strings.TrimSpace(c.Job) == "" {
		return fmt.Errorf("job script path is empty")
	}
	if c.Name != "" && !safeName.MatchString(c.Name) {
		return fmt.Errorf("job name %q: use letters, digits and . _ + - only", c.Name)
	}
	if !ValidScale(c.Scale) {
		return fmt.Errorf("scale %v: want 0 (real time) or a factor in [1e-3, 1e6]", c.Scale)
	}
	if c.Ahead < 0 {
		return fmt.Errorf("ahead %d: must be >= 0 (0 submits everything up front)", c.Ahead)
	}
	if len(c.Steps) == 0 {
		return fmt.Errorf("chain has no reservation")
	}
	for _, e := range c.Extra {
		if err := checkExtra(e); err != nil {
			return err
		}
	}
	for i, s := range c.Steps {
		if !(s.Time > 0) || math.IsInf(s.Time, 0) || s.Time/60 > units.MaxSlurmMinutes {
			return fmt.Errorf("reservation %d has length %v, want > 0 and finite", i+1, s.Time)
		}
		if s.Checkpoint && (!(s.CheckpointTime >= 0) || s.CheckpointTime >= s.Time) {
			return fmt.Errorf("reservation %d: checkpoint time %v does not fit in its length %v", i+1, s.CheckpointTime, s.Time)
		}
		if strings.ContainsAny(s.Mem, " \t\n'\"$`;&|,") {
			return fmt.Errorf("reservation %d: memory %q is not a plain sbatch --mem value", i+1, s.Mem)
		}
	}
	return nil
}

// checkExtra refuses an sbatch option that the chain sets itself, also
// abbreviated (sbatch takes any unambiguous prefix of a long option:
// --dep=… is --dependency=…), and a word that is not an option: a value
// must be joined to its option (--partition=gpu, -pgpu), since sbatch would
// take a lone word for the job script.
func checkExtra(e string) error {
	if !strings.HasPrefix(e, "-") || e == "-" || e == "--" {
		return fmt.Errorf("sbatch option %q is not an option: join values to their options (--partition=gpu, not --partition gpu)", e)
	}
	opt, _, _ := strings.Cut(e, "=")
	for _, own := range ownOptions {
		long := strings.HasPrefix(own, "--")
		if long && strings.HasPrefix(opt, "--") && len(opt) > 3 && strings.HasPrefix(own, opt) ||
			!long && !strings.HasPrefix(e, "--") && strings.HasPrefix(e, own) {
			return fmt.Errorf("sbatch option %q: the chain sets %s itself", e, own)
		}
	}
	return nil
}

// Args returns the sbatch arguments of reservation k (1-based) of chain id
// whose state folder is dir, given the job IDs of reservations 1…k−1, in
// order; the job script comes last. It is the one place where submissions
// are built: the submission script renders it and the runner calls sbatch
// with it.
func (c Chain) Args(id, dir string, k int, earlier []string) []string {
	s := c.Steps[k-1]
	a := []string{"--parsable", "--job-name=" + c.JobName() + ".r" + strconv.Itoa(k), "--comment=ckpt:chain=" + id,
		"--time=" + units.SlurmTime(s.Time/c.TimeScale())}
	if s.Mem != "" {
		a = append(a, "--mem="+s.Mem)
	}
	a = append(a, c.Extra...)
	// A bare ALL: the reservation's variables (Env) travel in sbatch's own
	// environment. The list form (--export=ALL,K=V) makes sbatch set
	// SLURM_GET_USER_ENV=1, and slurmd then runs the user's login shell
	// (su -) before every launch: seconds to minutes on a node whose
	// profile is slow, enough to kill short reservations before they start.
	a = append(a, "--export=ALL")
	if len(earlier) > 0 {
		a = append(a, "--dependency=afternotok:"+strings.Join(earlier, ":"), "--kill-on-invalid-dep=yes")
	}
	return append(a, c.Job)
}

// Env returns the environment of reservation k (1-based) of chain id whose
// state folder is dir, as NAME=VALUE: the runner's protocol variables, which
// sbatch exports to the job with --export=ALL (Args).
func (c Chain) Env(id, dir string, k int) []string {
	s := c.Steps[k-1]
	return []string{"CKPT_CHAIN=" + id, "CKPT_CHAIN_DIR=" + dir, "CKPT_RESERVATION=" + strconv.Itoa(k),
		"CKPT_CHECKPOINT=" + strconv.Itoa(b2i(s.Checkpoint)), "CKPT_RESTART=" + strconv.Itoa(b2i(s.Restart)),
		"CKPT_MILESTONE=" + strconv.FormatInt(int64(math.Round(s.Milestone)), 10)}
}

// window returns how many reservations the submission script submits.
func (c Chain) window() int {
	if c.Ahead == 0 || c.Ahead+1 > len(c.Steps) {
		return len(c.Steps)
	}
	return c.Ahead + 1
}

// quote makes s a single shell word.
func quote(s string) string {
	if safeName.MatchString(s) || regexp.MustCompile(`^[A-Za-z0-9._+/=:,@-]+$`).MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Script returns a bash script that saves the plan in the chain folder
// ($CKPT_CHAINS, default ~/.ckpt/chains, then the chain id), submits
// the first reservations (all of them when Ahead is 0), records their job
// IDs, and prints the chain id. The chain id is made when the script runs
// (NAME-date-pid, or $CKPT_CHAIN_ID). If a submission fails, the script
// cancels what it submitted and exits 1: nothing is left half submitted.
func (c Chain) Script() (string, error) {
	if err := c.Validate(); err != nil {
		return "", err
	}
	plan, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(`#!/usr/bin/env bash
# Reservation chain generated by ckpt. Reservation k runs only if reservations
# 1..k-1 all ended without completing (afternotok on all of them); once one
# completes, Slurm cancels the rest. Each reservation runs the job script,
# which runs "ckpt run -- APP ARGS..."; the runner submits further
# reservations (at most the window ahead) and records the outcome.
set -eEuo pipefail
`)
	fmt.Fprintf(&b, "chain=${CKPT_CHAIN_ID:-%s-$(date +%%Y%%m%%d-%%H%%M%%S)-$$}\n", c.JobName())
	b.WriteString(`root=${CKPT_CHAINS:-$HOME/.ckpt/chains}
case "$root$chain" in *,*|*[[:space:]]*) echo "ckpt: chain folder $root/$chain must not contain commas or spaces" >&2; exit 2;; esac
dir=$root/$chain
mkdir -p "$dir"
cat > "$dir/chain.json" <<'CKPT_PLAN'
`)
	b.Write(plan)
	b.WriteString("\nCKPT_PLAN\nsubmitted=()\n")
	b.WriteString(`trap 'if [ ${#submitted[@]} -gt 0 ]; then scancel "${submitted[@]}" || true; fi; echo "ckpt: submission failed; cancelled ${submitted[*]:-nothing}" >&2; exit 1' ERR
submit() { # reservation, then env NAME=VALUE... sbatch ARGUMENTS...
	local k=$1 id; shift
	id=$("$@"); id=${id%%;*}
	submitted+=("$id")
	echo "$k $id" >> "$dir/jobs"
}
`)
	for k := 1; k <= c.window(); k++ {
		var deps []string
		for j := 1; j < k; j++ {
			deps = append(deps, ref("submitted["+strconv.Itoa(j-1)+"]"))
		}
		s := c.Steps[k-1]
		fmt.Fprintf(&b, "# reservation %d of %d: %s", k, len(c.Steps), units.FormatSeconds(s.Time))
		if s.Checkpoint {
			b.WriteString(", checkpoint at the end")
		}
		if s.Restart {
			b.WriteString(", restart from the last checkpoint")
		}
		b.WriteString("\nsubmit " + strconv.Itoa(k) + " env")
		words := append(c.Env(ref("chain"), ref("dir"), k), "sbatch")
		for _, a := range append(words, c.Args(ref("chain"), ref("dir"), k, deps)...) {
			b.WriteString(" " + scriptWord(a))
		}
		b.WriteString("\n")
	}
	if w := c.window(); w < len(c.Steps) {
		fmt.Fprintf(&b, "# reservations %d-%d are submitted by the runners, %d ahead of the running one\n", w+1, len(c.Steps), c.Ahead)
	}
	b.WriteString("echo \"$chain\"\n")
	return b.String(), nil
}

// ref marks a reference to a script variable inside an argument.
func ref(name string) string { return "\x01" + name + "\x02" }

// scriptWord renders an argument as one shell word: literal text quoted,
// references (ref) as "${name}".
func scriptWord(a string) string {
	var b strings.Builder
	for a != "" {
		i := strings.IndexByte(a, '\x01')
		if i < 0 {
			b.WriteString(quote(a))
			break
		}
		if i > 0 {
			b.WriteString(quote(a[:i]))
		}
		j := strings.IndexByte(a, '\x02')
		b.WriteString(`"${` + a[i+1:j] + `}"`)
		a = a[j+1:]
	}
	return b.String()
}

func b2i(v bool) int {
	if v {
		return 1
	}
	return 0
}
