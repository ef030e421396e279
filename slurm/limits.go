package slurm

import (
	"context"
	"fmt"
	"math"
	"os/exec"
	"strconv"
	"strings"

	"github.com/ckpt-hpc/ckpt/units"
)

// Partition is what sinfo says of a partition.
type Partition struct {
	Name    string
	Default bool
	// MaxTime is the longest time limit in seconds (+Inf when unlimited);
	// MemMB the smallest node memory in MiB (0 when unknown).
	MaxTime, MemMB float64
}

// Limits runs sinfo and returns the partitions.
// It returns ErrNoSlurm when sinfo is not on PATH.
func (Exec) Limits(ctx context.Context) ([]Partition, error) {
	if _, err := exec.LookPath("sinfo"); err != nil {
		return nil, fmt.Errorf("sinfo: %w", ErrNoSlurm)
	}
	out, err := run(ctx, "sinfo", "-h", "-o", "%P|%l|%m")
	if err != nil {
		return nil, err
	}
	return ParseSinfo(out)
}

// ParseSinfo reads sinfo -h -o "%P|%l|%m" (one line per partition and node
// state; a partition's lines are merged, keeping its smallest memory).
func ParseSinfo(out string) ([]Partition, error) {
	var parts []Partition
	index := map[string]int{}
	for i, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(l, "|")
		if len(f) != 3 {
			return nil, fmt.Errorf("sinfo line %d: %q is not PARTITION|TIMELIMIT|MEMORY", i+1, l)
		}
		p := Partition{Name: strings.TrimSuffix(f[0], "*"), Default: strings.HasSuffix(f[0], "*"), MaxTime: math.Inf(1)}
		if t := strings.ToLower(f[1]); t != "infinite" && t != "unlimited" && t != "n/a" {
			sec, err := units.ParseSeconds(f[1])
			if err != nil {
				return nil, fmt.Errorf("sinfo line %d: time limit %q: %v", i+1, f[1], err)
			}
			p.MaxTime = sec
		}
		p.MemMB, _ = strconv.ParseFloat(strings.TrimRight(f[2], "+"), 64)
		if j, ok := index[p.Name]; ok {
			if p.MemMB > 0 && (parts[j].MemMB == 0 || p.MemMB < parts[j].MemMB) {
				parts[j].MemMB = p.MemMB
			}
			continue
		}
		index[p.Name] = len(parts)
		parts = append(parts, p)
	}
	return parts, nil
}

// memMB reads an sbatch --mem value (a number with an optional K, M, G or
// T suffix; M when none) as MiB.
func memMB(s string) (float64, bool) {
	mult := 1.0
	switch strings.ToUpper(s[len(s)-1:]) {
	case "K":
		mult = 1.0 / 1024
	case "M":
	case "G":
		mult = 1024
	case "T":
		mult = 1024 * 1024
	default:
		s += "M"
	}
	v, err := strconv.ParseFloat(s[:len(s)-1], 64)
	return v * mult, err == nil && v >= 0
}

// CheckLimits reports the first reservation of c that the partition it is
// submitted to (--partition in c.Extra, else the default one) cannot
// take: a --time beyond the partition's MaxTime (the scaled time that
// sbatch gets, Args), or a --mem beyond its nodes' memory.
func CheckLimits(c Chain, parts []Partition) error {
	name := ""
	for i, e := range c.Extra {
		switch {
		case strings.HasPrefix(e, "--partition="):
			name = strings.TrimPrefix(e, "--partition=")
		case strings.HasPrefix(e, "-p") && len(e) > 2:
			name = e[2:]
		case e == "-p" && i+1 < len(c.Extra):
			name = c.Extra[i+1]
		}
	}
	var p *Partition
	for i := range parts {
		if parts[i].Name == name || name == "" && parts[i].Default {
			p = &parts[i]
		}
	}
	if p == nil {
		if name == "" {
			return nil // no default partition: sbatch will say
		}
		return fmt.Errorf("partition %q is not one of sinfo's", name)
	}
	for k, s := range c.Steps {
		t := s.Time / c.TimeScale()
		limit := math.Ceil(t/60-1e-9) * 60
		if limit > p.MaxTime {
			return fmt.Errorf("reservation %d needs --time=%s but partition %s allows at most %s; plan with shorter reservations or another partition",
				k+1, units.SlurmTime(t), p.Name, units.SlurmTime(p.MaxTime))
		}
		if s.Mem != "" && p.MemMB > 0 {
			if mb, ok := memMB(s.Mem); ok && mb > p.MemMB {
				return fmt.Errorf("reservation %d asks --mem=%s but the nodes of partition %s have %.0f MiB", k+1, s.Mem, p.Name, p.MemMB)
			}
		}
	}
	return nil
}
