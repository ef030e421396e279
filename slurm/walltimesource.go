package slurm

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/ckpt-hpc/ckpt/distribution"
	"github.com/ckpt-hpc/ckpt/reservation"
	"github.com/ckpt-hpc/ckpt/trace"
	"github.com/ckpt-hpc/ckpt/usage"
)

// HistorySource is a walltime history to learn a law from: a file of
// walltimes (one per line, or a CSV column) or sacct --parsable2 output.
// It is the one path from past runs to a law, for ckpt reserve --history
// (LoadWalltime, a reservation.WalltimeSource) and ckpt chain history
// (Learn).
type HistorySource struct {
	// Path is the file to read; "-" reads Stdin.
	Path  string
	Stdin io.Reader
	// Format forces a layout; "" detects it (see HistoryOptions).
	Format trace.HistoryFormat
	// Column is the CSV column of the walltimes ("" detects it).
	Column string
	// States and Censored are the sacct states of lone jobs that are
	// complete, and right-censored, runs; nil means DefaultRunsOptions'
	// (COMPLETED, TIMEOUT). Given for another layout they are refused.
	States, Censored []string
	// Fit is how the law is learnt: auto (least BIC; also ""), empirical
	// (Kaplan-Meier when runs are censored) or a family.
	Fit string
}

// Validate checks the fit method and the states without reading anything.
func (s HistorySource) Validate() error {
	if s.Path == "" {
		return usage.Fieldf("Path", "empty history file name")
	}
	if err := distribution.CheckFitMethod(s.fit()); err != nil {
		return usage.Wrap(err)
	}
	err := s.states().Validate()
	var ue *usage.Error
	if errors.As(err, &ue) && ue.Field == "Complete" {
		ue.Field = "States" // this source's name of RunsOptions.Complete
	}
	return err
}

// fit is the fit method, auto when none is given.
func (s HistorySource) fit() string {
	if s.Fit == "" {
		return distribution.MethodAuto
	}
	return s.Fit
}

// states are the RunsOptions asked for, defaults filled in.
func (s HistorySource) states() RunsOptions {
	o := RunsOptions{Complete: s.States, Censored: s.Censored}
	if o.Complete == nil {
		o.Complete = DefaultRunsOptions.Complete
	}
	if o.Censored == nil {
		o.Censored = DefaultRunsOptions.Censored
	}
	return o
}

// Name is how reports and errors name the history: its path, or "stdin".
func (s HistorySource) Name() string {
	if s.Path == "-" {
		return "stdin"
	}
	return s.Path
}

// Read validates the source and reads the history; it returns its Name.
func (s HistorySource) Read() (History, string, error) {
	if err := s.Validate(); err != nil {
		return History{}, "", err
	}
	in, name := s.Stdin, s.Name()
	if s.Path != "-" {
		f, err := usage.Open(s.Path)
		if err != nil {
			return History{}, "", err
		}
		defer f.Close()
		in = f
	}
	h, err := ReadHistory(in, name, HistoryOptions{Format: s.Format, Column: s.Column, States: s.states()})
	if err != nil {
		return h, name, usage.Wrap(err)
	}
	if h.Format != trace.HistorySacct {
		if s.States != nil {
			return h, name, usage.Fieldf("States", "applies to sacct output; %s is a %s history", name, h.Format)
		}
		if s.Censored != nil {
			return h, name, usage.Fieldf("Censored", "applies to sacct output; %s is a %s history", name, h.Format)
		}
	}
	return h, name, nil
}

// Learn reads the history and learns its law (Learn).
func (s HistorySource) Learn() (History, Learned, error) {
	h, name, err := s.Read()
	if err != nil {
		return h, Learned{}, err
	}
	l, err := Learn(h.Runs, s.fit())
	if err != nil {
		return h, l, usage.Wrap(fmt.Errorf("%s: %w", name, err))
	}
	return h, l, nil
}

// LoadWalltime reads the history, refuses a walltime beyond
// reservation.MaxWalltime, learns the law and describes it
// (reservation.FromHistory).
func (s HistorySource) LoadWalltime(context.Context) (reservation.Walltime, error) {
	h, name, err := s.Read()
	if err != nil {
		return reservation.Walltime{}, err
	}
	t, censored := h.Runs.Observations()
	if err := reservation.CheckWalltimes(name, t); err != nil {
		return reservation.Walltime{}, err
	}
	l, err := Learn(h.Runs, s.fit())
	if err != nil {
		return reservation.Walltime{}, usage.Wrap(fmt.Errorf("%s: %w", name, err))
	}
	lh := reservation.LearnedHistory{Name: name, Walltimes: t, Censored: censored, Fit: l.Result, Method: s.fit()}
	if h.Format == trace.HistorySacct {
		lh.Sacct = &reservation.SacctCounts{Complete: h.Complete, Censored: h.Censored, Skipped: h.Skipped}
	}
	return reservation.FromHistory(lh), nil
}
