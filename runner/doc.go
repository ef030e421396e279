// Package runner runs parameter sweeps: every point of a list of parameter
// points, replicated reps times with independent seeds, on a pool of
// workers, with results written as CSV and JSON lines in a fixed order.
//
// # Items, seeds and order
//
// A sweep of P points × R replicates has P·R items numbered point-major,
// k = p·R + r. Item k receives a seed derived from (base seed, p, r) by
// chained SplitMix64 (see Seed) and a ready math/rand/v2 PCG generator
// seeded from it, and Run hands results to its Sink strictly in item
// order. A run's output is therefore a function of the base seed and the
// sweep alone: the same bytes for 1, 2 or 7 workers, and the same bytes
// for an unsplit run as for the merged outputs of its shards.
//
// # Output rows
//
// NewCSV and NewJSONL turn each result into one row: the leading columns
// item, point, rep and seed, then the result's own columns. A result
// chooses its columns by implementing Rower, or is a struct whose exported
// fields become columns (renamed with a `row:"name"` tag), or is a single
// number, bool or string, which becomes a column named value. Floats are
// written with strconv.FormatFloat(v, 'g', -1, 64), which reads back to the
// same float64. Tee writes both formats at once.
//
// # Splitting a sweep over a Slurm job array
//
// Shard i/n runs the items with k mod n = i; ParseShard reads the "i/n" of
// a --shard flag, or "auto" (SLURM_ARRAY_TASK_ID of SLURM_ARRAY_TASK_COUNT
// under a Slurm job array 0..N−1; the whole sweep outside any array) or
// "auto/N" (index from SLURM_ARRAY_TASK_ID or Kubernetes'
// JOB_COMPLETION_INDEX, N given: what a resubmission of some tasks, or an
// Indexed Job, needs). Each array task runs the same command with its own
// output files, and a final step merges them:
//
//	#SBATCH --array=0-7%4          # 0-based, at most 4 at once
//	ckpt ... --seed 42 --shard auto/8 --csv "out.$SLURM_ARRAY_TASK_ID.csv"
//
//	# after the array (sbatch --dependency=afterok:<jobid>):
//	runner.MergeFiles("out.csv", 0, "out.0.csv", ..., "out.7.csv")
//
// A shard's output ends with an end line (see Trailer) naming its shard
// and the sweep's item count, written only when the shard ran to its end;
// an unsplit run writes none, so its bytes are unchanged. From the end
// lines Merge knows the number of shards and items: it names the missing
// shards (as a --array= list for resubmission), the interrupted ones (no
// end line), repeated ones and ones from another split, and checks that
// the shard outputs share one header and hold every item exactly once. It
// writes the bytes the unsplit run would have written. Outputs without end
// lines merge by their items alone; pass the sweep's item count as expect
// to catch a lost final item there.
//
// # Programs of several sweeps (reproductions) on a job array
//
// An ItemLog carried by the context (WithItemLog) makes every Run under it
// record or replay its results, so that a program of several sweeps, such
// as `ckpt repro NAME`, shards without any change to its code:
// RecordShard runs the program computing shard i/n of the concatenated
// items of all its sweeps and writes their results (gob, base64) as JSON
// lines with the shard's end line; Merge joins the shards' logs into the
// unsplit run's log; a replayer (NewItemReplayer) then feeds the merged
// results back to the program, which writes every table and figure
// without computing a sweep. The program sees zero values for the other
// shards' items; where that makes it fail (a figure of an empty sample),
// RecordShard runs it again with that sweep computed in full, once per
// such sweep, reusing every item already computed.
//
// # Progress
//
// Run draws a progress bar (github.com/schollz/progressbar) on standard
// error only when standard error is a terminal; Options.Progress forces it
// off or on. The bar never goes to the data outputs.
//
// # Cancellation
//
// Cancelling Run's context (Ctrl-C in ckpt) stops dispatching items at
// once and cancels the context every running item receives; Run returns
// ctx.Err() as soon as the running items return, and the sink has
// received whole rows only, a prefix of the shard's items.
//
// # Complexity
//
// Run makes one call of the sweep function per item of the shard, plus
// O(1) work per item for seeding, reordering and writing; it holds at most
// 4·workers finished results waiting for an earlier item, so its memory is
// O(workers) results, whatever the sweep's size. Merge reads each input
// once, one record at a time: O(bytes + records · log inputs) time, O(inputs)
// records of memory. An ItemLog adds O(1) work per item plus a gob
// encoding of its result; RecordShard holds the shard's log and the
// encoded results of the program's sweeps in memory.
//
// The runner implements no paper; it runs the papers' parameter sweeps
// (the figures of the IPDPS 2020, APDCM 2018 and RR-9582 evaluations).
package runner
