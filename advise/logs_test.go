package advise

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestReplayShippedLogs replays the shipped logs in full; it takes minutes,
// so it runs only with CKPT_ADVISE_LOGS=1 (a comma list of file names, or
// "1" for all) and CKPT_DATA set.
func TestReplayShippedLogs(t *testing.T) {
	sel := os.Getenv("CKPT_ADVISE_LOGS")
	if sel == "" {
		t.Skip("set CKPT_ADVISE_LOGS=1 (or a comma list of logs) and CKPT_DATA to replay the shipped logs")
	}
	names := []string{"KTH-SP2-1996-2.1-cln.swf.gz", "SDSC-SP2-1998-4.2-cln.swf.gz", "CTC-SP2-1996-3.1-cln.swf.gz",
		"HPC2N-2002-2.2-cln.swf.gz", "CEA-Curie-2011-2.1-cln.swf.gz"}
	if sel != "1" {
		names = filepath.SplitList(sel)
	}
	for _, n := range names {
		l, err := ReadLogFile(filepath.Join(os.Getenv("CKPT_DATA"), "swf", n))
		if err != nil {
			t.Fatal(err)
		}
		p := DefaultParams()
		rep, err := Replay(context.Background(), l, p)
		if err != nil {
			t.Fatal(err)
		}
		rep.WriteText(os.Stdout)
	}
}
