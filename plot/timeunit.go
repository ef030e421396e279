package plot

// TimeUnit is the unit in which a time axis reaching hi seconds reads
// best, and its length in seconds: days from two weeks, hours from two
// hours, minutes from two minutes, else seconds. The figures of ckpt's
// commands divide their times by secs and name the unit in the axis label.
func TimeUnit(hi float64) (name string, secs float64) {
	switch {
	case hi >= 14*86400:
		return "d", 86400
	case hi >= 7200:
		return "h", 3600
	case hi >= 120:
		return "min", 60
	}
	return "s", 1
}
