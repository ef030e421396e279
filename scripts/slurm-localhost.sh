#!/usr/bin/env bash
# Start a one-node Slurm cluster on this machine (Debian's slurm-wlm and
# munge), for ckpt's end-to-end tests of sbatch chains. Idempotent; run as
# root. Installs the packages if they are missing.
set -euo pipefail

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi

host=$(hostname -s)
node=$(slurmd -C | head -1)           # NodeName=<host> CPUs=… RealMemory=…
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge /var/lib/munge /var/log/munge
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=ckpt-local
SlurmctldHost=$host
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
ReturnToService=2
MinJobAge=600
KillWait=5
InactiveLimit=0
$node State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF

if [ ! -s /etc/munge/munge.key ]; then
	mkdir -p /etc/munge
	dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
fi
chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge 2>/dev/null || true
chmod 0400 /etc/munge/munge.key
pgrep -x munged >/dev/null || su -s /bin/sh munge -c /usr/sbin/munged 2>/dev/null || /usr/sbin/munged --force
pgrep -x slurmctld >/dev/null || slurmctld
pgrep -x slurmd >/dev/null || slurmd
for _ in $(seq 30); do
	if sinfo -h -o %T 2>/dev/null | grep -q idle; then
		echo "slurm: one-node cluster up on $host"
		exit 0
	fi
	scontrol update nodename="$host" state=resume >/dev/null 2>&1 || true
	sleep 1
done
echo "slurm: cluster did not come up; see /var/log/slurm/" >&2
exit 1
