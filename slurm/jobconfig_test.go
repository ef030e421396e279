package slurm

import (
	"errors"
	"testing"
	"time"

	"github.com/ckpt-hpc/ckpt/usage"
)

// Complete reads the index, the after-checkpoint choice and the end time,
// the end from $SLURM_JOB_END_TIME when not given, and names the field of
// a bad value.
func TestJobSettingsComplete(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "SLURM_JOB_END_TIME" {
				return v
			}
			return ""
		}
	}
	var cfg RunConfig
	if err := (JobSettings{Reservation: "3", After: "continue"}).Complete(&cfg, env("1700000000")); err != nil {
		t.Fatal(err)
	}
	if cfg.Reservation != 3 || !cfg.Continue || !cfg.End.Equal(time.Unix(1700000000, 0)) {
		t.Fatalf("got %+v", cfg)
	}
	cfg = RunConfig{}
	if err := (JobSettings{Reservation: "1", After: "exit", End: "100"}).Complete(&cfg, env("")); err != nil || cfg.Continue || cfg.End.Unix() != 100 {
		t.Fatalf("got %+v, %v", cfg, err)
	}
	for _, c := range []struct {
		s     JobSettings
		scale float64
		field string
	}{
		{JobSettings{Reservation: "x", After: "exit"}, 0, "Reservation"},
		{JobSettings{Reservation: "0", After: "exit"}, 0, "Reservation"},
		{JobSettings{Reservation: "1", After: "exit"}, 1e9, "Scale"},
		{JobSettings{Reservation: "1", After: "later"}, 0, "Continue"},
		{JobSettings{Reservation: "1", After: "exit", End: "abc"}, 0, "End"},
	} {
		cfg := RunConfig{Scale: c.scale}
		err := c.s.Complete(&cfg, env(""))
		var ue *usage.Error
		if !errors.As(err, &ue) || ue.Field != c.field {
			t.Errorf("%+v: %v, want a usage error naming field %q", c.s, err, c.field)
		}
	}
}

// The runner's durations and stall limit are checked and named.
func TestJobSettingsDelays(t *testing.T) {
	for _, c := range []struct {
		margin, grace string
		stall         int
		field         string
	}{
		{"-3s", "", 0, "Margin"}, {"1e308", "", 0, "Margin"}, {"abc", "", 0, "Margin"}, {"NaN", "", 0, "Margin"},
		{"", "0", 0, "Grace"}, {"", "1e308", 0, "Grace"}, {"", "", -1, "StallLimit"}, {"0", "1s", 0, ""},
	} {
		cfg := RunConfig{StallLimit: c.stall}
		err := JobSettings{Reservation: "1", After: "exit", Margin: c.margin, Grace: c.grace}.Complete(&cfg, func(string) string { return "" })
		var ue *usage.Error
		if c.field == "" && err != nil || c.field != "" && (!errors.As(err, &ue) || ue.Field != c.field) {
			t.Errorf("%+v: %v, want field %q", c, err, c.field)
		}
	}
}
