package iosim

// The interference-free reference: every transfer runs at the full
// bandwidth as if alone, with Daly periods — what the jobs would see on a
// file system that scaled without limit. Not achievable; a yardstick.
func interferenceFree(float64) Strategy {
	return Strategy{Name: "interference-free", Sharing: Unlimited, Period: Daly{}}
}

// interferenceFreeFixed is the interference-free reference with a Fixed
// period, the yardstick of the paper's 1-hour runs.
func interferenceFreeFixed(p float64) Strategy {
	return Strategy{Name: "interference-free-fixed", Sharing: Unlimited, Period: Fixed(p)}
}

// Baseline is the reference run the waste is measured against (Section
// VI-A): same jobs, no failures, no checkpoints, no interference.
func Baseline() Strategy {
	return Strategy{Name: "baseline", Sharing: Unlimited, Period: Never{}}
}
