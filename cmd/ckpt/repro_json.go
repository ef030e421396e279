package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/ckpt-hpc/ckpt/output"
)

// reproComparisonJSON is one row of a reproduction's comparisons.csv:
// the paper's value beside ours (null where the paper gives none).
type reproComparisonJSON struct {
	Experiment string        `json:"experiment"`
	Quantity   string        `json:"quantity"`
	Paper      output.Number `json:"paper"`
	Ours       output.Number `json:"ours"`
	Diff       output.Number `json:"diff"`
	RelDiff    output.Number `json:"rel_diff"`
	Note       string        `json:"note"`
}

// writeComparisonsJSON prints dir/comparisons.csv as JSON (ckpt repro
// --json): the result of a reproduction, the tables having gone to stderr.
func writeComparisonsJSON(w io.Writer, dir string) error {
	path := filepath.Join(dir, "comparisons.csv")
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	out := []reproComparisonJSON{}
	num := func(s string) output.Number {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return output.Number(math.NaN())
		}
		return output.Number(v)
	}
	for i, r := range recs {
		if i == 0 {
			continue
		}
		if len(r) != 7 {
			return fmt.Errorf("%s:%d: %d fields, want 7", path, i+1, len(r))
		}
		out = append(out, reproComparisonJSON{r[0], r[1], num(r[2]), num(r[3]), num(r[4]), num(r[5]), r[6]})
	}
	return writeJSON(w, out)
}
