#!/usr/bin/env bash
# Start a one-node Slurm cluster with accounting (slurmdbd on MariaDB, so
# that sacct works) on this machine, for ckpt's end-to-end tests of
# reservation chains. Debian/Ubuntu packages slurm-wlm, slurmdbd, munge and
# mariadb-server (installed when missing). Run as root; idempotent.
#
# Two partitions on the node: debug (the default, no time limit) and short
# (MaxTime=5 minutes), on which the tests check plans bounded by MaxTime and
# Slurm's PartitionTimeLimit reason.
#
# The node declares CKPT_SLURM_SLOTS CPUs (default 256, the 256 hardware
# threads of the paper's Xeon Phi in ckpt repro slurm) whatever it really
# has (SlurmdParameters=config_overrides): one slot per sequential job, and
# the stand-in application of ckpt repro slurm mostly sleeps.
#
# It writes /etc/slurm/slurm.conf and /etc/slurm/slurmdbd.conf only when they
# are absent or were written by this script (they carry the marker line
# below): it never overwrites a configuration it did not write. Tests submit
# jobs only when told to: CKPT_SLURM_TESTS=1 go test ./slurm/
set -euo pipefail

marker="# Written by ckpt scripts/slurm-localhost.sh; delete this file to hand it back."
confdir=${CKPT_SLURM_CONF_DIR:-/etc/slurm} # where slurm.conf goes
conf=$confdir/slurm.conf
dbconf=$confdir/slurmdbd.conf

# --preempt: preemption by QOS (PreemptType=preempt/qos, PreemptMode=REQUEUE,
# SlurmctldParameters=preempt_send_user_signal). Jobs of QOS ckpt-urgent
# preempt jobs of QOS ckpt-preemptable, which get GraceTime=${CKPT_PREEMPT_GRACE:-45}
# seconds (Slurm's SIGTERM, then its SIGKILL at the new end) and are requeued
# (same job ID, SLURM_RESTART_COUNT + 1). Jobs of QOS normal, every job that
# asks for no QOS, on debug and short as before, are never preempted: no QOS
# lists normal. Once set up it stays (a re-run without --preempt keeps it).
# Slurm 22.05 has no MaxBatchRequeue (23.02 has): ckpt run bounds the
# requeues itself (slurm.MaxRequeues).
preempt=no
for a in "$@"; do [ "$a" = --preempt ] && preempt=yes; done
if [ -e "$conf" ] && grep -qx 'PreemptType=preempt/qos' "$conf" && grep -qxF "$marker" "$conf"; then preempt=yes; fi
preempt_conf() { # the slurm.conf lines
	printf 'PreemptType=preempt/qos\nPreemptMode=REQUEUE\nSlurmctldParameters=preempt_send_user_signal\n'
}
preempt_qos() { # the two QOS, created or brought back to these settings
	local grace=${CKPT_PREEMPT_GRACE:-45}
	case "$grace" in ''|*[!0-9]*) echo "slurm-localhost: CKPT_PREEMPT_GRACE=$grace: want seconds" >&2; exit 2;; esac
	sacctmgr -n -P show qos format=name | grep -qx ckpt-preemptable || sacctmgr -i add qos ckpt-preemptable >/dev/null
	sacctmgr -n -P show qos format=name | grep -qx ckpt-urgent || sacctmgr -i add qos ckpt-urgent >/dev/null
	sacctmgr -i modify qos ckpt-preemptable set PreemptMode=requeue GraceTime="$grace" >/dev/null || true
	sacctmgr -i modify qos ckpt-urgent set Preempt=ckpt-preemptable Priority=1000 >/dev/null || true
}

if [ "$(id -u)" != 0 ]; then
	echo "slurm-localhost: run as root (it installs packages and starts daemons)" >&2
	exit 2
fi
for f in "$conf" "$dbconf"; do
	if [ -e "$f" ] && ! grep -qxF "$marker" "$f"; then
		echo "slurm-localhost: $f exists and was not written by this script; refusing to overwrite it." >&2
		echo "slurm-localhost: to use this machine's own Slurm, run the tests against it (CKPT_SLURM_TESTS=1);" >&2
		echo "slurm-localhost: to let this script configure a test cluster, move it away first: mv $f $f.orig" >&2
		exit 2
	fi
done

# --cli-filter POLICY: ckpt's walltime advisor in every sbatch, salloc and
# srun (docs/advise.md). contrib/slurm/cli_filter.lua goes beside slurm.conf
# as cli_filter.lua, with POLICY as its default (respect: advise only jobs
# without --time; within: every job, never above its --time) and the model
# $confdir/ckpt-advise.model (ckpt advise learn --from-cluster --model …),
# and slurm.conf gets CliFilterPlugins=cli_filter/lua. The filter runs
# /usr/local/bin/ckpt-advise (go install ./cmd/ckpt-advise, then copy it
# there: it answers in a few milliseconds), else /usr/local/bin/ckpt
# advise (CKPT_ADVISE_BIN and CKPT_BIN override them). As with the
# configurations, a cli_filter.lua this script did not write is never
# overwritten; a re-run without --cli-filter removes the one it wrote.
cli_filter=none
prev=
for a in "$@"; do
	case "$prev" in --cli-filter) cli_filter=$a;; esac
	case "$a" in --cli-filter=*) cli_filter=${a#--cli-filter=};; esac
	prev=$a
done
if [ "$prev" = --cli-filter ]; then cli_filter=""; fi
cli_filter_check() { # POLICY LUA: refuses a bad policy, or to replace a file it did not write
	case "$1" in none|respect|within) ;; *)
		echo "slurm-localhost: --cli-filter '$1': want respect or within" >&2; return 2;; esac
	if [ "$1" != none ] && [ -e "$2" ] && ! grep -qxF -- "-- $marker" "$2"; then
		echo "slurm-localhost: $2 exists and was not written by this script; refusing to overwrite it." >&2
		return 2
	fi
}
cli_filter_install() { # POLICY LUA CONF_NEW SRC: writes LUA, appends to CONF_NEW
	local policy=$1 lua=$2 confnew=$3 src=$4
	cli_filter_check "$policy" "$lua" || return
	if [ "$policy" = none ]; then
		if [ -e "$lua" ] && grep -qxF -- "-- $marker" "$lua"; then rm -f "$lua"; fi
		return 0
	fi
	{ echo "-- $marker"; sed -e "s|or \"respect\"|or \"$policy\"|" \
		-e "s|or \"/etc/slurm/ckpt-advise.model\"|or \"$(dirname "$lua")/ckpt-advise.model\"|" "$src"; } > "$lua.new" || return
	if ! grep -qF "or \"$policy\"" "$lua.new"; then
		echo "slurm-localhost: $src: no default policy to set" >&2
		rm -f "$lua.new"
		return 1
	fi
	chmod 644 "$lua.new" && mv "$lua.new" "$lua" && echo "CliFilterPlugins=cli_filter/lua" >> "$confnew"
}
cli_filter_check "$cli_filter" "$confdir/cli_filter.lua" || exit 2

if ! command -v slurmctld >/dev/null || ! command -v slurmdbd >/dev/null || ! command -v munged >/dev/null || ! command -v mariadbd >/dev/null; then
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm slurmdbd munge mariadb-server >/dev/null
fi

host=$(hostname -s)
slots=${CKPT_SLURM_SLOTS:-256}
case "$slots" in ''|*[!0-9]*) echo "slurm-localhost: CKPT_SLURM_SLOTS=$slots: want a number of CPUs" >&2; exit 2;; esac
mem=$(slurmd -C | head -1 | tr ' ' '\n' | grep '^RealMemory=' || true) # RealMemory=…
mkdir -p "$confdir" /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge /var/lib/munge /var/log/munge /run/mysqld

cat > "$dbconf.new" <<CONF
$marker
AuthType=auth/munge
DbdHost=localhost
SlurmUser=root
PidFile=/run/slurmdbd.pid
LogFile=/var/log/slurm/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=root
StorageLoc=slurm_acct_db
CONF
chmod 600 "$dbconf.new"
mv "$dbconf.new" "$dbconf"

cat > "$conf.new" <<CONF
$marker
ClusterName=ckpt-local
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmdSpoolDir=/var/spool/slurmd
StateSaveLocation=/var/spool/slurmctld
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoreFlags=job_comment
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
ReturnToService=2
SlurmdParameters=config_overrides
MaxJobCount=100000
MinJobAge=300
KillWait=5
InactiveLimit=0
NodeName=$host CPUs=$slots $mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
PartitionName=short Nodes=$host Default=NO MaxTime=5 State=UP
CONF
if [ "$preempt" = yes ]; then preempt_conf >> "$conf.new"; fi
# A changed configuration reaches a slurmctld that already runs through
# scontrol reconfigure (enough for partitions; running and pending jobs keep
# going); an unchanged one is left alone, so re-runs stay idempotent.
cli_filter_install "$cli_filter" "$confdir/cli_filter.lua" "$conf.new" "$(cd "$(dirname "$0")/.." && pwd)/contrib/slurm/cli_filter.lua"
reconfigure=no
if [ -e "$conf" ] && ! cmp -s "$conf.new" "$conf"; then reconfigure=yes; fi
mv "$conf.new" "$conf"

if [ ! -s /etc/munge/munge.key ]; then
	mkdir -p /etc/munge
	dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
fi
chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge 2>/dev/null || true
chmod 0400 /etc/munge/munge.key
pgrep -x munged >/dev/null || su -s /bin/sh munge -c /usr/sbin/munged 2>/dev/null || /usr/sbin/munged --force

# MariaDB: root connects through the Unix socket (unix_socket authentication).
chown mysql:mysql /run/mysqld
if ! pgrep -x mariadbd >/dev/null; then
	[ -d /var/lib/mysql/mysql ] || mariadb-install-db --user=mysql >/dev/null
	(mariadbd --user=mysql >/var/log/slurm/mariadb.log 2>&1 &)
fi
for _ in $(seq 30); do mariadb -e 'select 1' >/dev/null 2>&1 && break; sleep 1; done
mariadb -e 'create database if not exists slurm_acct_db' || { echo "slurm-localhost: MariaDB did not start; see /var/log/slurm/mariadb.log" >&2; exit 1; }

pgrep -x slurmdbd >/dev/null || slurmdbd
for _ in $(seq 30); do sacctmgr -n list cluster >/dev/null 2>&1 && break; sleep 1; done
sacctmgr -i add cluster ckpt-local >/dev/null 2>&1 || true
if [ "$preempt" = yes ]; then preempt_qos; fi
if pgrep -x slurmctld >/dev/null; then
	if [ "$reconfigure" = yes ]; then scontrol reconfigure; fi
else
	slurmctld
fi
pgrep -x slurmd >/dev/null || slurmd
for _ in $(seq 30); do
	# A node that answers is up, idle or running jobs (a re-run of this
	# script while earlier jobs still run must not report a failure).
	if sinfo -h -o %T 2>/dev/null | grep -Eq '^(idle|mixed|allocated|completing)$' && sacct -n -X -S now >/dev/null 2>&1; then
		echo "slurm: one-node cluster with accounting up on $host; run the tests with CKPT_SLURM_TESTS=1"
		exit 0
	fi
	if sinfo -h -o %T 2>/dev/null | grep -Eq '^(down|drain)'; then
		scontrol update nodename="$host" state=resume >/dev/null 2>&1 || true
	fi
	sleep 1
done
echo "slurm: cluster did not come up; see /var/log/slurm/" >&2
exit 1
