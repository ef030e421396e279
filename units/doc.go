// Package units is ckpt's one grammar for durations and bandwidths, for
// flags, YAML and JSON configs, profiles and histories alike.
//
// A duration (ParseSeconds) is a plain number of seconds ("600", "1e3"), a
// Go-style duration with days and years ("90m", "1.5h", "1h30m", "2d",
// "2d04h", "1y", "1.5e3s"), or one of Slurm's forms ("MM:SS", "HH:MM:SS",
// "D-HH", "D-HH:MM", "D-HH:MM:SS"), the form `sbatch --time` takes and ckpt
// prints (SlurmTime). Non-finite values and overflows are refused. What
// FormatSeconds prints for humans ("59.9s", "12m30s", "3h05m", "2d04h")
// reads back through ParseSeconds. A bandwidth (ParseBandwidth) is bytes/s,
// bare or with a decimal unit: "40e9", "40GB/s", "40G". Seconds and
// Bandwidth are float64 types that read either form from YAML and JSON
// (`te: 24h`, `"00:10:00"`, `600`, `20GB/s`). ParseGBps is the bandwidth
// grammar in GB/s with a unit required. JSONForYAML lets the YAML readers
// of configs and profiles read JSON strings as encoding/json does
// (surrogate-pair escapes).
//
// It implements no paper: the papers' durations (reservation lengths,
// checkpoint costs, MTBFs) and bandwidths (file-system throughput in the
// APDCM 2018 paper) are read and printed through it.
//
// Complexity: parsing and formatting take time linear in the length of the
// text and O(1) memory besides the result.
package units
