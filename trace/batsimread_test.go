package trace

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"
	"strings"
)

// ReadBatsimSchedule reads Batsim's PREFIX_schedule.csv: a header line and
// one row of values (makespan, nb_jobs, mean_waiting_time, …), returned by
// column name. Numeric columns are parsed; others are skipped. Only the
// tests read this file.
func ReadBatsimSchedule(r io.Reader, name string) (map[string]float64, error) {
	cr := csv.NewReader(r)
	hdr, err := cr.Read()
	if err != nil {
		if err == io.EOF {
			return nil, errorf(name, 0, "empty file: want a header and a row")
		}
		return nil, csvError(name, err)
	}
	row, err := cr.Read()
	if err != nil {
		if err == io.EOF {
			return nil, errorf(name, 1, "header without a row of values")
		}
		return nil, csvError(name, err)
	}
	out := map[string]float64{}
	for i, h := range hdr {
		if x, err := strconv.ParseFloat(strings.TrimSpace(row[i]), 64); err == nil && !math.IsNaN(x) && !math.IsInf(x, 0) {
			out[strings.TrimSpace(h)] = x
		}
	}
	if _, err := cr.Read(); err != io.EOF {
		return out, errorf(name, 3, "more than one row of values")
	}
	return out, nil
}
