package iosim

// Ordered-NB (Section III-C): FCFS token as Ordered, but a job waiting for
// its checkpoint token keeps computing until the token arrives, and the
// checkpoint then saves the progress made while waiting. Input, output,
// recovery and regular I/O stay blocking.

func orderedNBFixed(p float64) Strategy {
	return withPolicy("ordered-nb-fixed", "ordered-nb", Fixed(p))
}

func orderedNBDaly(float64) Strategy {
	return withPolicy("ordered-nb-daly", "ordered-nb", Daly{})
}
