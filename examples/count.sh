#!/usr/bin/env bash
# Example application for "ckpt run" (see the slurm package's protocol): its
# work is WORK seconds of counting (default 60), one unit per second, or per
# 1/SPEED seconds. Run it in a job script as
#     ckpt run -- examples/count.sh
# It resumes from $CKPT_PROGRESS_FILE when CKPT_RESTART=1, writes its
# progress there on SIGUSR1 (the checkpoint) and exits 1, or keeps counting
# when CKPT_AFTER_CHECKPOINT=continue, and exits 0 when the work is done.
set -u
checkpoint=0
trap 'checkpoint=1' USR1 # first: the runner may signal early
trap 'exit 143' TERM
work=${WORK:-60}
tick=$(awk -v s="${SPEED:-1}" 'BEGIN { printf "%.6f", 1 / s }')
progress=0
if [ "${CKPT_RESTART:-0}" = 1 ] && [ -s "${CKPT_PROGRESS_FILE:-}" ]; then
	progress=$(cat "$CKPT_PROGRESS_FILE")
	progress=${progress%.*}
fi
save() { # write the progress atomically
	[ -n "${CKPT_PROGRESS_FILE:-}" ] || return 0
	echo "$progress" > "$CKPT_PROGRESS_FILE.tmp" && mv "$CKPT_PROGRESS_FILE.tmp" "$CKPT_PROGRESS_FILE"
}
echo "count: reservation ${CKPT_RESERVATION:-?} resumes at $progress of $work"
while [ "$progress" -lt "$work" ]; do
	sleep "$tick" &
	wait $! || true # a signal interrupts the wait
	if [ "$checkpoint" = 1 ]; then
		save
		echo "count: checkpoint at $progress"
		checkpoint=0
		[ "${CKPT_AFTER_CHECKPOINT:-exit}" = continue ] || exit 1
		continue
	fi
	progress=$((progress + 1))
done
save
echo "count: done at $progress"
exit 0
