package iosim

// Oblivious (Section III-A): every transfer starts at once and the
// bandwidth is shared in proportion to the transferring jobs' node counts;
// jobs block during their transfers.

func obliviousFixed(p float64) Strategy {
	return Strategy{Name: "oblivious-fixed", Sharing: Proportional, Period: Fixed(p)}
}

func obliviousDaly(float64) Strategy {
	return Strategy{Name: "oblivious-daly", Sharing: Proportional, Period: Daly{}}
}
