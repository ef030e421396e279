package iosim

// Oblivious (Section III-A): every transfer starts at once and the
// bandwidth is shared in proportion to the transferring jobs' node counts;
// jobs block during their transfers.

func obliviousFixed(p float64) Strategy {
	return withPolicy("oblivious-fixed", "oblivious", Fixed(p))
}

func obliviousDaly(float64) Strategy {
	return withPolicy("oblivious-daly", "oblivious", Daly{})
}
